#include "arena/stats/standings.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "arena/common/json_file.h"
#include "arena/stats/ratings.h"
#include "google/protobuf/util/json_util.h"
#include "referee/records/record.h"

namespace arena {
namespace {

void CountFault(v1::FaultKind kind, v1::FaultCounts* c) {
  switch (kind) {
    case v1::FAULT_KIND_TIMEOUT: c->set_timeout(c->timeout() + 1); break;
    case v1::FAULT_KIND_ILLEGAL: c->set_illegal(c->illegal() + 1); break;
    case v1::FAULT_KIND_DISCONNECTED: c->set_disconnected(c->disconnected() + 1); break;
    case v1::FAULT_KIND_CRASHED: c->set_crashed(c->crashed() + 1); break;
    case v1::FAULT_KIND_NO_SHOW: c->set_no_show(c->no_show() + 1); break;
    case v1::FAULT_KIND_CUT_OFF: c->set_cut_off(c->cut_off() + 1); break;
    default: c->set_unavailable(c->unavailable() + 1); break;
  }
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// One bot's counts (integers) and sums (exact until read). `wins` counts
// matches (one of its seats placed first), not seats.
struct Tally {
  int64_t matches = 0, seats = 0, wins = 0, forfeits = 0;
  ExactSum score_sum;
  int64_t placement_sum = 0;
  v1::FaultCounts faults;
  std::vector<int64_t> by_seat;  // seats played, by seat
  // The first match (by id, so that the order matches came in does not
  // matter) this bot forfeited as withdrawn, and that forfeit's detail.
  std::string withdrawn_match, withdrawn_reason;
  // Matches it won that another bot forfeited as NO_SHOW: not credited to
  // a bot that is itself withdrawn (the record cannot say whether it was
  // still there when the other did not show).
  int64_t no_show_wins = 0;
  ThinkTimes think;  // its answers' think times, every seat of it
};

// "2-5,7": sorted 1-based positions as ranges.
std::string Ranges(const std::vector<int>& sorted) {
  std::string out;
  for (size_t k = 0; k < sorted.size();) {
    size_t e = k;
    while (e + 1 < sorted.size() && sorted[e + 1] == sorted[e] + 1) ++e;
    absl::StrAppend(&out, out.empty() ? "" : ",", sorted[k]);
    if (e > k) absl::StrAppend(&out, "-", sorted[e]);
    k = e + 1;
  }
  return out;
}

// `all` without the matches of `no_show` (a part of them): counts
// subtracted, means of the rest.
HeadToHead WithoutNoShows(const HeadToHead& all, const HeadToHead& no_show) {
  if (no_show.matches == 0) return all;
  HeadToHead x;
  x.matches = all.matches - no_show.matches;
  if (x.matches <= 0) return HeadToHead{};
  x.ahead = all.ahead - no_show.ahead;
  x.tied = all.tied - no_show.tied;
  x.behind = all.behind - no_show.behind;
  auto rest = [&](double a, double b) {
    return (a * all.matches - b * no_show.matches) / x.matches;
  };
  x.score = rest(all.score, no_show.score);
  x.opponent_score = rest(all.opponent_score, no_show.opponent_score);
  x.placement = rest(all.placement, no_show.placement);
  x.opponent_placement = rest(all.opponent_placement, no_show.opponent_placement);
  return x;
}

// The "surely ahead" statement, bounded: every pair when there are few,
// else each bot's count (the first kMaxShown bots that have one).
std::string SurelyAheadLine(const v1::Standings& st) {
  constexpr int kMaxShown = 12;
  if (st.pairs_compared() == 0) return "";
  const int pct = static_cast<int>(std::lround(st.interval_level() * 100));
  std::string out = absl::StrFormat("surely ahead (%d%%, Holm over %d pairs): ", pct,
                                    st.pairs_compared());
  if (st.pairs_ordered() == 0) return out + "no bot is surely ahead of another\n";
  std::vector<std::string> parts;
  if (st.pairs_ordered() <= kMaxShown) {
    for (const auto& r : st.rows()) {
      for (absl::string_view range : absl::StrSplit(r.surely_ahead_of(), ',', absl::SkipEmpty())) {
        std::pair<std::string, std::string> ends = absl::StrSplit(range, '-');
        int from = 0, to = 0;
        if (!absl::SimpleAtoi(ends.first, &from)) continue;
        if (ends.second.empty() || !absl::SimpleAtoi(ends.second, &to)) to = from;
        for (int k = from; k <= to && k <= st.rows_size(); ++k) {
          parts.push_back(absl::StrCat(r.bot(), " > ", st.rows(k - 1).bot()));
        }
      }
    }
    return absl::StrCat(out, absl::StrJoin(parts, ", "), "\n");
  }
  int more = 0;
  for (const auto& r : st.rows()) {
    if (r.surely_ahead_count() == 0) continue;
    if (static_cast<int>(parts.size()) < kMaxShown) {
      parts.push_back(absl::StrCat(r.bot(), " > ", r.surely_ahead_count()));
    } else {
      ++more;
    }
  }
  absl::StrAppend(&out, st.pairs_ordered(), " pairs ordered; bot > how many: ",
                  absl::StrJoin(parts, ", "));
  if (more > 0) absl::StrAppend(&out, ", and ", more, " more bots");
  return out + " (every pair: surely_ahead_of in standings.json)\n";
}

// Each bot's think times, when any answer was timed (records of every
// format hold them).
std::string ThinkTimeLines(const v1::Standings& st, int w) {
  bool any = false;
  for (const auto& r : st.rows()) any = any || r.answers() > 0;
  if (!any) return "";
  bool bank = false;  // a column for the time banks, when any was spent
  for (const auto& r : st.rows()) bank = bank || r.bank_spent_ms() > 0;
  std::string out = absl::StrFormat("think time, ms: %-*s %9s %9s %9s %9s %8s", w, "bot",
                                    "median", "95%", "longest", "answers", "timeouts");
  out += bank ? absl::StrFormat(" %10s\n", "bank spent") : "\n";
  for (const auto& r : st.rows()) {
    out += absl::StrFormat("                %-*s %9.2f %9.2f %9.2f %9d %8d", w, r.bot(),
                           r.think_ms_median(), r.think_ms_p95(), r.think_ms_max(),
                           r.answers(), r.fault_kinds().timeout());
    out += bank ? absl::StrFormat(" %10.1f\n", r.bank_spent_ms()) : "\n";
  }
  return out;
}

// Each bot's processes, when arena started them (entrants.json).
std::string ResourceLines(const v1::Standings& st, int w) {
  bool any = false;
  for (const auto& r : st.rows()) any = any || r.processes() > 0;
  if (!any) return "";
  std::string out = absl::StrFormat("processes:      %-*s %9s %9s %13s\n", w, "bot",
                                    "started", "CPU s", "peak RSS MiB");
  for (const auto& r : st.rows()) {
    out += absl::StrFormat("                %-*s %9d %9.2f %13.1f\n", w, r.bot(),
                           r.processes(), r.cpu_seconds(), r.peak_rss_kib() / 1024.0);
  }
  return out;
}

}  // namespace

struct StandingsAccumulator::Impl {
  explicit Impl(StandingsContext c) : ctx(std::move(c)) {
    for (const std::string& b : ctx.bots) IndexOf(b);
  }
  int IndexOf(const std::string& bot) {
    auto [it, fresh] = index.try_emplace(bot, static_cast<int>(bots.size()));
    if (fresh) {
      bots.push_back(bot);
      tally.emplace_back();
    }
    return it->second;
  }

  StandingsContext ctx;
  // Bots by index: the context's, then the others in the order they came
  // (Build orders those by name).
  std::vector<std::string> bots;
  absl::flat_hash_map<std::string, int> index;
  std::vector<Tally> tally;
  DealGroupComparisons groups;
  HeadToHeadTable h2h;
  // The same, of the matches a bot forfeited as NO_SHOW only: taken out of
  // the head to head of two withdrawn bots.
  HeadToHeadTable h2h_no_show;
  int64_t matches = 0;
};

StandingsAccumulator::StandingsAccumulator(StandingsContext context)
    : impl_(std::make_unique<Impl>(std::move(context))) {}
StandingsAccumulator::StandingsAccumulator(const StandingsAccumulator& other)
    : impl_(std::make_unique<Impl>(*other.impl_)) {}
StandingsAccumulator::StandingsAccumulator(StandingsAccumulator&&) noexcept = default;
StandingsAccumulator::~StandingsAccumulator() = default;

int64_t StandingsAccumulator::matches() const { return impl_->matches; }

void StandingsAccumulator::SetContext(StandingsContext context) {
  impl_->ctx = std::move(context);
  for (const std::string& b : impl_->ctx.bots) impl_->IndexOf(b);
}

absl::Status StandingsAccumulator::Add(const MatchSummary& m) {
  const size_t seats = m.seat_bots.size();
  if (m.placements.size() != seats || m.scores.size() != seats) {
    return absl::InvalidArgumentError(
        absl::StrCat("match ", m.match_id, ": seats, placements and scores differ in number"));
  }
  if (m.forfeit_seat >= static_cast<int>(seats)) {
    return absl::InvalidArgumentError(
        absl::StrCat("match ", m.match_id, ": forfeit by seat ", m.forfeit_seat, " of ", seats));
  }
  for (const SeatFault& f : m.faults) {
    if (f.seat < 0 || f.seat >= static_cast<int>(seats)) {
      return absl::InvalidArgumentError(
          absl::StrCat("match ", m.match_id, ": a fault of seat ", f.seat, " of ", seats));
    }
  }
  for (int p : m.placements) {
    if (p < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("match ", m.match_id, ": placement ", p, " (1 is best)"));
    }
  }
  Impl& im = *impl_;
  absl::InlinedVector<int, 8> players;
  for (const auto& b : m.seat_bots) players.push_back(im.IndexOf(b));
  if (absl::Status s = im.groups.Add(m.deal_group.empty() ? m.match_id : m.deal_group,
                                     players, m.placements);
      !s.ok()) {
    return s;  // not reached: checked above
  }
  im.h2h.Add(players, m.placements, m.scores);
  const bool no_show = m.forfeit_seat >= 0 && !m.faults.empty() &&
                       m.faults.back().kind == v1::FAULT_KIND_NO_SHOW;
  if (no_show) im.h2h_no_show.Add(players, m.placements, m.scores);
  // Each bot counts once per match, in matches and in wins: it won the
  // match if one of its seats placed first (a shared first place is a win
  // for every bot in it), however many seats it filled.
  absl::InlinedVector<int, 8> present, won;
  for (size_t s = 0; s < seats; ++s) {
    const int b = players[s];
    Tally& t = im.tally[b];
    if (std::find(present.begin(), present.end(), b) == present.end()) {
      present.push_back(b);
      ++t.matches;
    }
    ++t.seats;
    if (s < m.think.size()) t.think.Merge(m.think[s]);
    if (t.by_seat.size() <= s) t.by_seat.resize(s + 1, 0);
    ++t.by_seat[s];
    t.score_sum.Add(m.scores[s]);
    t.placement_sum += m.placements[s];
    if (m.placements[s] == 1 && std::find(won.begin(), won.end(), b) == won.end()) {
      won.push_back(b);
      ++t.wins;
      if (no_show && b != players[m.forfeit_seat]) ++t.no_show_wins;
    }
  }
  if (m.forfeit_seat >= 0) {
    Tally& t = im.tally[players[m.forfeit_seat]];
    ++t.forfeits;
    // The forfeit is the last fault of the match.
    if (no_show && (t.withdrawn_match.empty() || m.match_id < t.withdrawn_match)) {
      t.withdrawn_match = m.match_id;
      t.withdrawn_reason = m.forfeit_detail;
    }
  }
  for (const SeatFault& f : m.faults) CountFault(f.kind, &im.tally[players[f.seat]].faults);
  ++im.matches;
  return absl::OkStatus();
}

absl::StatusOr<v1::Standings> BuildStandings(const StandingsContext& ctx,
                                             const std::vector<MatchSummary>& matches) {
  StandingsAccumulator acc(ctx);
  for (const MatchSummary& m : matches) {
    if (absl::Status s = acc.Add(m); !s.ok()) return s;
  }
  return acc.Build();
}

absl::StatusOr<v1::Standings> StandingsAccumulator::Build() const {
  const Impl& im = *impl_;
  const StandingsContext& ctx = im.ctx;
  // Rows: the context's bots, then the others by name. canon[k] is the row
  // index of the bot added as k, added[r] the reverse.
  // (The context's bots are all known: the constructor and SetContext
  // register them.)
  const int n = static_cast<int>(im.bots.size());
  std::vector<int> added;
  added.reserve(n);
  std::vector<bool> placed(n, false);
  for (const std::string& b : ctx.bots) {
    const int k = im.index.at(b);
    if (!placed[k]) {
      placed[k] = true;
      added.push_back(k);
    }
  }
  const size_t known = added.size();
  for (int k = 0; k < n; ++k) {
    if (!placed[k]) added.push_back(k);
  }
  std::sort(added.begin() + known, added.end(),
            [&](int a, int b) { return im.bots[a] < im.bots[b]; });
  std::vector<int> canon(n);
  for (int r = 0; r < n; ++r) canon[added[r]] = r;
  std::vector<std::string> bots(n);
  for (int r = 0; r < n; ++r) bots[r] = im.bots[added[r]];
  auto tally_of = [&](int r) -> const Tally& { return im.tally[added[r]]; };

  // Only the bots with a comparison (a match against another bot) are
  // rated and ranked: one without is unranked (rank 0, no rating, LOS 0.5),
  // rather than rated 0 by the prior with an interval as wide as the prior
  // allows, and it neither moves the others' centring and ranks nor counts
  // in the "surely ahead" tests. rated[r]: the row's index in the fit, or -1.
  std::vector<int> rated(n, -1);
  int num_rated = 0;
  for (int r = 0; r < n; ++r) {
    const size_t k = static_cast<size_t>(added[r]);
    if (k < im.groups.comparisons().size() && im.groups.comparisons()[k] > 0) {
      rated[r] = num_rated++;
    }
  }
  // The fit's player of each bot as added (one without a comparison is in
  // no pair: any index does).
  std::vector<int> fit_of(n, 0);
  for (int k = 0; k < n; ++k) fit_of[k] = std::max(rated[canon[k]], 0);
  RatingOptions ro;
  ro.bootstrap = ctx.bootstrap;
  ro.seed = kStandingsBootstrapSeed;
  ro.compare.resize(std::max(num_rated, 1), true);
  for (int b = 0; b < n; ++b) {
    if (rated[b] >= 0) ro.compare[rated[b]] = tally_of(b).withdrawn_match.empty();
  }
  auto ratings = FitRatings(std::max(num_rated, 1), im.groups, fit_of, ro);
  if (!ratings.ok()) return ratings.status();

  v1::Standings st;
  st.set_game(ctx.game);
  for (const auto& [k, v] : ctx.options) (*st.mutable_options())[k] = v;
  st.set_seats(ctx.seats);
  st.set_higher_score_wins(ctx.higher_score_wins);
  const int played = static_cast<int>(im.matches);
  st.set_matches_played(played);
  const int planned = ctx.matches_planned >= 0 ? ctx.matches_planned : played;
  st.set_matches_planned(planned);
  st.set_matches_unrecorded(std::max(0, planned - played));
  st.set_deal_groups(ratings->deal_groups);
  st.set_deal_mode(ctx.deal_mode == v1::DEAL_MODE_UNSPECIFIED ? v1::DEAL_MODE_DUPLICATE
                                                               : ctx.deal_mode);
  st.set_bootstrap(ratings->bootstrap);
  st.set_interval_level(ro.level);
  // Balance: over every bot of the rows (also those that played nothing
  // yet), and every seat position of the game.
  int seat_positions = ctx.seats;
  for (const Tally& t : im.tally) {
    seat_positions = std::max(seat_positions, static_cast<int>(t.by_seat.size()));
  }
  v1::Balance* balance = st.mutable_balance();
  balance->set_bots(n);
  bool balanced = played > 0;
  for (int b = 0; b < n; ++b) {
    const Tally& t = tally_of(b);
    auto count = [&](int s) {
      return s < static_cast<int>(t.by_seat.size()) ? t.by_seat[s] : int64_t{0};
    };
    const int matches = static_cast<int>(t.matches);
    if (b == 0 || matches < balance->matches_min()) balance->set_matches_min(matches);
    if (b == 0 || matches > balance->matches_max()) balance->set_matches_max(matches);
    for (int s = 0; s < seat_positions; ++s) {
      const int c = static_cast<int>(count(s));
      if ((b == 0 && s == 0) || c < balance->seat_count_min()) balance->set_seat_count_min(c);
      if ((b == 0 && s == 0) || c > balance->seat_count_max()) balance->set_seat_count_max(c);
      if (count(s) != count(0)) balanced = false;  // this bot's seats differ
    }
  }
  if (balance->matches_min() != balance->matches_max()) balanced = false;
  st.set_balanced(balanced);
  std::vector<int> present;  // rows of the bots not withdrawn
  for (int b = 0; b < n; ++b) {
    if (tally_of(b).withdrawn_match.empty()) present.push_back(b);
  }
  int64_t pairs = 0;
  for (size_t x = 0; x < present.size(); ++x) {
    for (size_t y = x + 1; y < present.size(); ++y) {
      const int met = im.h2h.Get(added[present[x]], added[present[y]]).matches;
      if (pairs == 0 || met < balance->meetings_min()) balance->set_meetings_min(met);
      if (pairs == 0 || met > balance->meetings_max()) balance->set_meetings_max(met);
      ++pairs;
    }
  }
  balance->set_pairs(static_cast<int>(pairs));

  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  auto mean_placement = [&](int b) {
    const Tally& t = tally_of(b);
    return t.seats ? static_cast<double>(t.placement_sum) / t.seats : 0.0;
  };
  // The unranked after every ranked bot, by name.
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if ((rated[a] < 0) != (rated[b] < 0)) return rated[a] >= 0;
    if (rated[a] < 0) return bots[a] < bots[b];
    const int ra = ratings->rank[rated[a]], rb = ratings->rank[rated[b]];
    if (ra != rb) return ra < rb;
    if (mean_placement(a) != mean_placement(b)) return mean_placement(a) < mean_placement(b);
    return bots[a] < bots[b];
  });
  std::vector<int> position(n);  // 1-based, in row order
  for (int k = 0; k < n; ++k) position[order[k]] = k + 1;
  int64_t ordered = 0;
  for (int b : order) {
    const Tally& t = tally_of(b);
    const bool withdrawn = !t.withdrawn_match.empty();
    v1::StandingRow* row = st.add_rows();
    const int f = rated[b];  // the row's index in the fit (-1: unranked)
    row->set_bot(bots[b]);
    if (f >= 0) {
      row->set_rank(ratings->rank[f]);
      row->set_rank_low(ratings->rank_low[f]);
      row->set_rank_high(ratings->rank_high[f]);
    }
    if (f >= 0 && !ratings->surely_ahead.empty()) {
      std::vector<int> ahead_of;
      int behind = 0;
      for (int o = 0; o < n; ++o) {
        if (rated[o] < 0) continue;
        if (ratings->surely_ahead[f][rated[o]]) ahead_of.push_back(position[o]);
        if (ratings->surely_ahead[rated[o]][f]) ++behind;
      }
      std::sort(ahead_of.begin(), ahead_of.end());
      row->set_surely_ahead_count(static_cast<int>(ahead_of.size()));
      row->set_surely_behind_count(behind);
      row->set_surely_ahead_of(Ranges(ahead_of));
      ordered += static_cast<int64_t>(ahead_of.size());
    }
    if (f >= 0) {
      row->set_elo(ratings->elo[f]);
      row->set_elo_low(ratings->low[f]);
      row->set_elo_high(ratings->high[f]);
    }
    row->set_matches(t.matches);
    row->set_seats_played(t.seats);
    row->set_wins(static_cast<int>(withdrawn ? t.wins - t.no_show_wins : t.wins));
    row->set_mean_score(t.seats ? t.score_sum.Value() / t.seats : 0);
    row->set_mean_placement(mean_placement(b));
    row->set_forfeits(t.forfeits);
    row->set_answers(t.think.count());
    row->set_think_ms_median(t.think.QuantileUs(0.5) / 1000);
    row->set_think_ms_p95(t.think.QuantileUs(0.95) / 1000);
    row->set_think_ms_max(static_cast<double>(t.think.max_us()) / 1000);
    row->set_bank_spent_ms(static_cast<double>(t.think.bank_spent_us()) / 1000);
    *row->mutable_fault_kinds() = t.faults;
    row->set_faults(t.faults.timeout() + t.faults.illegal() +
                    t.faults.disconnected() + t.faults.unavailable() +
                    t.faults.crashed() + t.faults.no_show() + t.faults.cut_off());
    if (withdrawn) {
      row->set_withdrawn(true);
      row->set_withdrawn_reason(t.withdrawn_reason);
    }
    for (int o : order) {
      row->add_los(f >= 0 && rated[o] >= 0 ? ratings->los[f][rated[o]] : 0.5);
    }
  }
  st.set_pairs_compared(static_cast<int>(ratings->pairs_compared));
  st.set_pairs_ordered(static_cast<int>(ordered));
  for (int a : order) {
    for (int b : order) {
      if (a == b) continue;
      HeadToHead x = im.h2h.Get(added[a], added[b]);
      if (!tally_of(a).withdrawn_match.empty() && !tally_of(b).withdrawn_match.empty()) {
        // Two withdrawn bots: a match one of them did not show up for says
        // nothing of the other, which may not have been there either.
        x = WithoutNoShows(x, im.h2h_no_show.Get(added[a], added[b]));
      }
      if (x.matches == 0) continue;
      v1::HeadToHeadRow* r = st.add_head_to_head();
      r->set_bot(bots[a]);
      r->set_opponent(bots[b]);
      r->set_matches(x.matches);
      r->set_ahead(x.ahead);
      r->set_tied(x.tied);
      r->set_behind(x.behind);
      r->set_mean_score(x.score);
      r->set_opponent_mean_score(x.opponent_score);
      r->set_mean_placement(x.placement);
      r->set_opponent_mean_placement(x.opponent_placement);
    }
  }
  return st;
}

std::string StandingsTable(const v1::Standings& st) {
  std::string out = absl::StrFormat(
      "%s, %d seats, %d of %d matches, %d deal groups (%s deals; %s score is "
      "better; win%% per match, mean score and place per seat)%s\n",
      st.game(), st.seats(), st.matches_played(), st.matches_planned(),
      st.deal_groups(),
      st.deal_mode() == v1::DEAL_MODE_INDEPENDENT ? "independent" : "duplicate",
      st.higher_score_wins() ? "higher" : "lower",
      st.balanced() ? "" : " [not balanced]");
  const v1::Balance& bal = st.balance();
  out += absl::StrFormat(
      "balance: %d-%d matches per bot, %d-%d times at a seat position per bot and seat, "
      "%d-%d meetings per pair of bots not withdrawn (%d pairs)\n",
      bal.matches_min(), bal.matches_max(), bal.seat_count_min(), bal.seat_count_max(),
      bal.meetings_min(), bal.meetings_max(), bal.pairs());
  int w = 3;
  for (const auto& r : st.rows()) w = std::max<int>(w, r.bot().size());
  const int pct = static_cast<int>(std::lround(st.interval_level() * 100));
  out += absl::StrFormat("%-4s %-9s %-*s %6s %17s %7s %6s %10s %10s %8s %6s\n", "rank",
                         absl::StrCat(pct, "% ranks"), w, "bot", "elo",
                         absl::StrCat(pct, "% interval"), "matches", "win%", "mean score",
                         "mean place", "forfeits", "faults");
  for (const auto& r : st.rows()) {
    // Rank 0: unranked (no match against another bot), no rating.
    const bool ranked = r.rank() > 0;
    out += absl::StrFormat(
        "%-4s %-9s %-*s %6s %17s %7d %5.1f%% %10.3f %10.3f %8d %6d\n",
        ranked ? absl::StrCat(r.rank()) : "-",
        ranked ? absl::StrCat(r.rank_low(), "-", r.rank_high()) : "-", w, r.bot(),
        ranked ? absl::StrFormat("%+.0f", r.elo()) : "-",
        !ranked ? std::string("unranked")
        : st.bootstrap() > 0 || r.elo_low() < r.elo_high()
            ? absl::StrFormat("[%+.0f, %+.0f]", r.elo_low(), r.elo_high())
            : std::string("-"),
        r.matches(), r.matches() ? 100.0 * r.wins() / r.matches() : 0.0,
        r.mean_score(), r.mean_placement(), r.forfeits(), r.faults());
  }
  out += SurelyAheadLine(st);
  out += ThinkTimeLines(st, w);
  out += ResourceLines(st, w);
  const int n = st.rows_size();
  if (n >= 2 && n <= 8) {
    out += "likelihood of superiority (row stronger than column):\n";
    out += absl::StrFormat("%-*s", w, "");
    for (const auto& c : st.rows()) out += absl::StrFormat(" %7.7s", c.bot());
    out += "\n";
    for (const auto& r : st.rows()) {
      out += absl::StrFormat("%-*s", w, r.bot());
      for (int j = 0; j < n; ++j) {
        // Against itself, or with an unranked bot: no likelihood.
        const bool none = r.bot() == st.rows(j).bot() || r.rank() == 0 || st.rows(j).rank() == 0;
        out += none ? absl::StrFormat(" %7s", "-") : absl::StrFormat(" %7.3f", r.los(j));
      }
      out += "\n";
    }
    std::map<std::pair<std::string, std::string>, const v1::HeadToHeadRow*> h;
    for (const auto& x : st.head_to_head()) h[{x.bot(), x.opponent()}] = &x;
    out += "head to head (row ahead-tied-behind column):\n";
    out += absl::StrFormat("%-*s", w, "");
    for (const auto& c : st.rows()) out += absl::StrFormat(" %11.11s", c.bot());
    out += "\n";
    for (const auto& r : st.rows()) {
      out += absl::StrFormat("%-*s", w, r.bot());
      for (const auto& c : st.rows()) {
        auto it = h.find({r.bot(), c.bot()});
        out += it == h.end() ? absl::StrFormat(" %11s", "-")
                             : absl::StrFormat(" %11s", absl::StrCat(it->second->ahead(), "-",
                                                                     it->second->tied(), "-",
                                                                     it->second->behind()));
      }
      out += "\n";
    }
  }
  // Faults by kind and what the run knew of each bot that had trouble.
  std::map<std::string, const v1::EntrantReport*> entrant;
  for (const auto& e : st.entrants()) entrant[e.bot()] = &e;
  std::string trouble;
  for (const auto& r : st.rows()) {
    const auto& f = r.fault_kinds();
    std::vector<std::string> parts;
    for (auto [n, name] : {std::pair{f.timeout(), "timeout"}, {f.illegal(), "illegal"},
                           {f.disconnected(), "disconnected"},
                           {f.unavailable(), "unavailable"}, {f.crashed(), "crashed"},
                           {f.no_show(), "no show"}, {f.cut_off(), "cut off"}}) {
      if (n > 0) parts.push_back(absl::StrCat(n, " ", name));
    }
    auto it = entrant.find(r.bot());
    const v1::EntrantReport* e = it == entrant.end() ? nullptr : it->second;
    const int restarts = e != nullptr ? e->restarts() : 0;
    if (parts.empty() && restarts == 0 && !r.withdrawn()) continue;
    absl::StrAppend(&trouble, "  ", r.bot(), ": ",
                    parts.empty() ? "no faults" : absl::StrJoin(parts, ", "));
    if (restarts > 0) absl::StrAppend(&trouble, "; ", restarts, " restart(s)");
    if (r.withdrawn() || (e != nullptr && e->withdrawn())) {
      const std::string& why = e != nullptr && !e->reason().empty()
                                   ? e->reason() : r.withdrawn_reason();
      absl::StrAppend(&trouble, "; WITHDRAWN: ", why);
    }
    if (e != nullptr && !e->log().empty()) {
      absl::StrAppend(&trouble, "; log: ", e->log(), " (in the records folder)");
    }
    trouble += "\n";
  }
  if (!trouble.empty()) out += absl::StrCat("faults, restarts and withdrawals:\n", trouble);
  if (st.matches_unrecorded() > 0) {
    out += absl::StrCat("WARNING: ", st.matches_unrecorded(),
                        " planned matches have no complete record\n");
  }
  return out;
}

std::string StandingsCsv(const v1::Standings& st) {
  std::string out =
      "rank,bot,elo,elo_low,elo_high,matches,seats,wins,mean_score,"
      "mean_placement,forfeits,faults_timeout,faults_illegal,"
      "faults_disconnected,faults_unavailable,faults_crashed,faults_no_show,"
      "faults_cut_off,withdrawn,rank_low,rank_high,surely_ahead_count,"
      "surely_behind_count";
  for (const auto& r : st.rows()) absl::StrAppend(&out, ",", CsvField("los_" + r.bot()));
  out += "\n";
  for (const auto& r : st.rows()) {
    const auto& f = r.fault_kinds();
    // An unranked bot (rank 0: no match against another bot) has empty
    // rank and rating fields.
    const bool ranked = r.rank() > 0;
    absl::StrAppendFormat(&out, "%s,%s,%s,%d,%d,%d,%.6f,%.6f,%d,%d,%d,%d,%d,%d,%d,%d,%d",
                          ranked ? absl::StrCat(r.rank()) : "", CsvField(r.bot()),
                          ranked ? absl::StrFormat("%.6f,%.6f,%.6f", r.elo(), r.elo_low(),
                                                   r.elo_high())
                                 : ",,",
                          r.matches(), r.seats_played(), r.wins(),
                          r.mean_score(), r.mean_placement(), r.forfeits(),
                          f.timeout(), f.illegal(), f.disconnected(), f.unavailable(),
                          f.crashed(), f.no_show(), f.cut_off(), r.withdrawn() ? 1 : 0);
    absl::StrAppendFormat(&out, ",%s,%d,%d",
                          ranked ? absl::StrCat(r.rank_low(), ",", r.rank_high()) : ",",
                          r.surely_ahead_count(), r.surely_behind_count());
    for (double l : r.los()) absl::StrAppendFormat(&out, ",%.6f", l);
    out += "\n";
  }
  return out;
}

std::string HeadToHeadCsv(const v1::Standings& st) {
  std::string out =
      "bot,opponent,matches,ahead,tied,behind,mean_score,opponent_mean_score,"
      "mean_placement,opponent_mean_placement\n";
  for (const auto& x : st.head_to_head()) {
    absl::StrAppendFormat(&out, "%s,%s,%d,%d,%d,%d,%.6f,%.6f,%.6f,%.6f\n",
                          CsvField(x.bot()), CsvField(x.opponent()), x.matches(),
                          x.ahead(), x.tied(), x.behind(), x.mean_score(),
                          x.opponent_mean_score(), x.mean_placement(),
                          x.opponent_mean_placement());
  }
  return out;
}

absl::StatusOr<std::string> StandingsJson(const v1::Standings& st) {
  std::string json;
  google::protobuf::util::JsonPrintOptions o;
  o.add_whitespace = true;
  o.preserve_proto_field_names = true;
  o.always_print_primitive_fields = true;
  auto s = google::protobuf::util::MessageToJsonString(st, &json, o);
  if (!s.ok()) return absl::InternalError(s.ToString());
  return json;
}

absl::Status ForEachRecordSummary(const std::string& dir,
                                  std::vector<std::string>* problems,
                                  const RecordSummaryFn& fn) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return absl::NotFoundError(absl::StrCat("cannot read folder ", dir,
                                            ec ? ": " + ec.message() : ": not a folder"));
  }
  // Regular files only: a FIFO, device or link named like a record is
  // skipped and said (ListRecordFiles), never opened or followed.
  RecordListing listing = ListRecordFiles(dir);
  if (problems != nullptr) {
    problems->insert(problems->end(), listing.skipped.begin(), listing.skipped.end());
  }
  for (const auto& f : listing.files) {
    const std::string name = std::filesystem::path(f).filename().string();
    if (!IsRecordFileName(name) || name[0] == '.') continue;  // *.part

    auto lines = ReadRecordFile(f);
    absl::StatusOr<MatchSummary> m =
        lines.ok() ? SummarizeRecord(*lines, f) : absl::StatusOr<MatchSummary>(lines.status());
    if (!m.ok()) {
      if (problems != nullptr) problems->push_back(std::string(m.status().message()));
      continue;
    }
    if (absl::Status s = fn(*m, *lines); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status WriteStandings(const v1::Standings& st, const std::string& dir) {
  auto json = StandingsJson(st);
  if (!json.ok()) return json.status();
  for (const auto& [name, text] :
       {std::pair<std::string, std::string>{"standings.csv", StandingsCsv(st)},
        {"head_to_head.csv", HeadToHeadCsv(st)},
        {"standings.json", *json}}) {
    if (absl::Status s = WriteFileDurably(absl::StrCat(dir, "/", name), text);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status WriteEntrants(const std::vector<v1::EntrantReport>& entrants,
                           const std::string& dir) {
  v1::EntrantReports m;
  for (const auto& e : entrants) *m.add_entrants() = e;
  return WriteJsonFile(absl::StrCat(dir, "/", kEntrantsFile), m);
}

absl::StatusOr<std::vector<v1::EntrantReport>> ReadEntrants(const std::string& dir) {
  v1::EntrantReports m;
  if (absl::Status s = ReadJsonFile(absl::StrCat(dir, "/", kEntrantsFile), &m); !s.ok()) {
    return s;
  }
  return std::vector<v1::EntrantReport>(m.entrants().begin(), m.entrants().end());
}

void MergeEntrants(const std::vector<v1::EntrantReport>& from,
                   std::vector<v1::EntrantReport>* into) {
  for (const auto& e : from) {
    auto it = std::find_if(into->begin(), into->end(),
                           [&](const v1::EntrantReport& x) { return x.bot() == e.bot(); });
    if (it == into->end()) {
      into->push_back(e);
      continue;
    }
    it->set_restarts(it->restarts() + e.restarts());
    if (e.withdrawn() && !it->withdrawn()) {
      it->set_withdrawn(true);
      it->set_reason(e.reason());
    }
    if (it->log().empty()) it->set_log(e.log());
    for (const auto& x : e.exits()) it->add_exits(x);
    it->set_processes(it->processes() + e.processes());
    it->set_cpu_seconds(it->cpu_seconds() + e.cpu_seconds());
    it->set_peak_rss_kib(std::max(it->peak_rss_kib(), e.peak_rss_kib()));
  }
}

void SetEntrants(const std::vector<v1::EntrantReport>& entrants, v1::Standings* st) {
  st->clear_entrants();
  std::map<std::string, const v1::EntrantReport*> by_bot;
  for (const auto& e : entrants) {
    *st->add_entrants() = e;
    by_bot[e.bot()] = &e;
  }
  const v1::EntrantReport none;
  for (auto& row : *st->mutable_rows()) {
    auto it = by_bot.find(row.bot());
    const v1::EntrantReport& e = it == by_bot.end() ? none : *it->second;
    row.set_processes(e.processes());
    row.set_cpu_seconds(e.cpu_seconds());
    row.set_peak_rss_kib(e.peak_rss_kib());
  }
}

std::vector<std::string> FailedEntrants(const v1::Standings& st) {
  std::vector<std::string> failed;
  for (const auto& r : st.rows()) {
    const auto& f = r.fault_kinds();
    if (r.withdrawn() || f.crashed() > 0 || f.no_show() > 0 || f.cut_off() > 0) {
      failed.push_back(r.bot());
    }
  }
  for (const auto& e : st.entrants()) {
    if ((e.withdrawn() || e.restarts() > 0 || e.exits_size() > 0) &&
        std::find(failed.begin(), failed.end(), e.bot()) == failed.end()) {
      failed.push_back(e.bot());
    }
  }
  return failed;
}

}  // namespace arena
