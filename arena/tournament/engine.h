// The contest engine: one contest of any planner, composed of named parts.
//
//   planner (planner.h)      which matches, batch by batch; learns each result
//   booking (booking.h)      a resume's records, then each match that ends, fed
//                            to the standings (standings_sink.h), the planner,
//                            TournamentHooks::on_recorded and the progress
//                            (progress.h); where a record goes (the live site)
//   match pump (match_pump.h) starts matches within the bounds (jobs, opening
//                            window, start holds, fresh bot processes, stops),
//                            books each as it ends, meters the load
//                            (load_meter.h) and stops on a full disk
//                            (storage_stop.h)
//
// RunContest makes the records folder and (unless resuming) its
// manifest.json, then asks the planner for batches until it says the
// contest is over: each batch is resumed (its matches already recorded are
// booked, with --resume) and played. Then the planner finishes
// (schedule.json), the pump reports (the load, the fair clocks), and the
// standings are built and written a last time.
//
// Ownership and lifetime: the caller owns the planner, the hub and the
// hooks, which outlive the call; RunContest owns every other part and
// ends them before it returns (the pump first, once no match is live).
//
// Thread safety: RunContest blocks; the matches run on gRPC's threads and
// the deadline timer, and everything else on the caller's thread.
#ifndef ARENA_ARENA_TOURNAMENT_ENGINE_H_
#define ARENA_ARENA_TOURNAMENT_ENGINE_H_

#include "absl/status/statusor.h"
#include "arena/tournament/planner.h"
#include "arena/tournament/secret.h"
#include "arena/tournament/tournament.h"
#include "arena/v1/config.pb.h"
#include "referee/service/bot_hub.h"

namespace arena {

// Plays the contest `planner` plans for a validated config (the planner
// made from it) and returns the final standings, also written into
// config.records_dir with the records.
absl::StatusOr<v1::Standings> RunContest(const v1::TournamentConfig& config,
                                         const TournamentSecret& secret, BotHub& hub,
                                         const TournamentHooks& hooks, Planner& planner);

}  // namespace arena

#endif  // ARENA_ARENA_TOURNAMENT_ENGINE_H_
