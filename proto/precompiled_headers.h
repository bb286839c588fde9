// The headers that nearly every file of the project parses: the standard
// library's most used, Abseil's, protobuf's, gRPC's, spdlog's and the
// generated protocol. With ARENA_PRECOMPILED_HEADERS (the default with
// Clang) they are parsed once, into the precompiled header of the target
// arena_pch, which every C++ target of the tree then reuses (see the top
// CMakeLists.txt). Parsing them took over half of the build's CPU time: the
// generated protocol alone is 33,000 lines in every file.
//
// Nothing may rely on this list: each file includes what it uses, and a
// build without precompiled headers (GCC's default) checks that it does.
#ifndef ARENA_PROTO_PRECOMPILED_HEADERS_H_
#define ARENA_PROTO_PRECOMPILED_HEADERS_H_

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "arena/v1/arena.pb.h"
#include "arena/v1/config.pb.h"
#include "arena/v1/record.pb.h"
#include "arena/v1/replay.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/grpcpp.h"
#include "spdlog/spdlog.h"

#endif  // ARENA_PROTO_PRECOMPILED_HEADERS_H_
