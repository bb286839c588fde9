// A match's summary for the standings, from the runner's outcome or from
// its record (arena/stats/standings.h).
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "arena/stats/standings.h"

namespace arena {

MatchSummary SummarizeMatch(const MatchSpec& spec, const MatchOutcome& outcome) {
  MatchSummary m;
  m.match_id = spec.match_id;
  m.deal_group = spec.deal_group;
  m.seat_bots = spec.seat_bots;
  const v1::MatchResult& r = outcome.result;
  m.placements.assign(r.placements().begin(), r.placements().end());
  m.scores.assign(r.scores().begin(), r.scores().end());
  if (r.end_reason() == v1::END_REASON_FORFEIT) {
    m.forfeit_seat = r.forfeit_seat();
    m.forfeit_detail = r.detail();
  }
  m.faults = outcome.faults;
  for (const MatchTiming::Seat& seat : outcome.timing.seats) m.think.push_back(seat.think);
  return m;
}

absl::StatusOr<MatchSummary> SummarizeRecord(
    const std::vector<v1::RecordLine>& lines, const std::string& source) {
  if (lines.empty() || !lines.front().has_header()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the first line is not a record header"));
  }
  if (!lines.back().has_result()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the record has no result (unfinished)"));
  }
  const v1::RecordHeader& h = lines.front().header();
  MatchSummary m;
  m.match_id = h.match_id();
  m.deal_group = h.deal_group();
  m.seat_bots.assign(h.seat_bots().begin(), h.seat_bots().end());
  m.think.resize(m.seat_bots.size());
  for (const v1::RecordLine& l : lines) {
    if (l.has_decision()) {
      for (const v1::SeatAction& a : l.decision().actions()) {
        if (a.source() == v1::SeatAction::SOURCE_REFEREE_FAULT) {
          m.faults.push_back({a.seat(), a.fault()});
        }
        // The answers that came in time, legal or not (MatchTiming's).
        const bool answered = a.source() == v1::SeatAction::SOURCE_BOT ||
                              (a.source() == v1::SeatAction::SOURCE_REFEREE_FAULT &&
                               a.fault() == v1::FAULT_KIND_ILLEGAL);
        if (a.seat() < 0 || a.seat() >= static_cast<int>(m.think.size())) continue;
        if (answered) m.think[a.seat()].Add(a.think_us());
        m.think[a.seat()].AddBankSpent(a.bank_spent_us());
      }
    } else if (l.has_forfeit()) {
      m.faults.push_back({l.forfeit().seat(), l.forfeit().fault()});
    }
  }
  const v1::MatchResult& r = lines.back().result();
  m.placements.assign(r.placements().begin(), r.placements().end());
  m.scores.assign(r.scores().begin(), r.scores().end());
  if (r.end_reason() == v1::END_REASON_FORFEIT) {
    m.forfeit_seat = r.forfeit_seat();
    m.forfeit_detail = r.detail();
  }
  const size_t seats = m.seat_bots.size();
  if (m.placements.size() != seats || m.scores.size() != seats) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": the result has ", m.placements.size(), " placements and ",
        m.scores.size(), " scores for ", seats, " seats"));
  }
  for (const SeatFault& f : m.faults) {
    if (f.seat < 0 || f.seat >= static_cast<int>(seats)) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": a fault of seat ", f.seat, " of ", seats));
    }
  }
  if (m.forfeit_seat >= static_cast<int>(seats)) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": forfeit by seat ", m.forfeit_seat, " of ", seats));
  }
  return m;
}


}  // namespace arena
