#include "text_output.h"

#include <iostream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace halma::halmactl {

namespace v1 = ::halma::v1;

char SeatLetter(v1::Seat seat) {
  switch (seat) {
    case v1::SEAT_W:
      return 'w';
    case v1::SEAT_R:
      return 'r';
    case v1::SEAT_B:
      return 'b';
    case v1::SEAT_G:
      return 'g';
    default:
      return '?';
  }
}

std::string SeatList(const google::protobuf::RepeatedField<int>& seats) {
  std::vector<std::string> letters;
  for (int s : seats) letters.emplace_back(1, SeatLetter(v1::Seat(s)));
  return absl::StrJoin(letters, ", ");
}

std::string RuleWords(v1::DecidingRule rule) {
  switch (rule) {
    case v1::DECIDING_RULE_TARGET_FILLED:
      return "target filled";
    case v1::DECIDING_RULE_HOME_EXIT:
      return "home-exit rule";
    case v1::DECIDING_RULE_MOVE_CAP:
      return "move cap";
    case v1::DECIDING_RULE_EVERYONE_STUCK:
      return "everyone stuck";
    default:
      return "unspecified rule";
  }
}

std::string ReasonWords(v1::IllegalReason reason) {
  std::string name = v1::IllegalReason_Name(reason);
  if (absl::StartsWith(name, "ILLEGAL_REASON_")) name = name.substr(15);
  absl::AsciiStrToLower(&name);
  for (char& c : name) {
    if (c == '_') c = ' ';
  }
  return name.empty() ? std::string("unknown reason") : name;
}

std::string StatusLine(const v1::GameStatus& status) {
  std::string line;
  switch (status.state()) {
    case v1::GameStatus::STATE_IN_PROGRESS:
      line = absl::StrCat(std::string(1, SeatLetter(status.to_move())),
                          " to move");
      if (status.round_completion_turn()) {
        absl::StrAppend(&line, " (round-completion turn)");
      }
      if (status.must_pass()) {
        absl::StrAppend(&line, "; no legal move: must pass");
      }
      break;
    case v1::GameStatus::STATE_WIN:
      line = absl::StrCat(SeatList(status.winners()), " wins (",
                          RuleWords(status.rule()), ")");
      if (status.ply() > 0) absl::StrAppend(&line, " at ply ", status.ply());
      break;
    case v1::GameStatus::STATE_DRAW:
      line = absl::StrCat("draw between ", SeatList(status.winners()), " (",
                          RuleWords(status.rule()), ")");
      if (status.ply() > 0) absl::StrAppend(&line, " at ply ", status.ply());
      break;
    default:
      line = "unknown state";
  }
  if (status.finished_size() > 0) {
    absl::StrAppend(&line, "; finished: ", SeatList(status.finished()));
  }
  if (status.eliminated_size() > 0) {
    absl::StrAppend(&line, "; eliminated: ", SeatList(status.eliminated()));
  }
  return line;
}

std::string BoardDiagram(absl::string_view position) {
  std::vector<absl::string_view> fields =
      absl::StrSplit(position, ' ', absl::SkipEmpty());
  if (fields.size() != 3) return "";
  std::vector<std::string> rows;  // Rank N first.
  for (absl::string_view rank : absl::StrSplit(fields[0], '/')) {
    std::string row;
    int run = 0;
    for (char c : rank) {
      if (absl::ascii_isdigit(c)) {
        run = run * 10 + (c - '0');
        if (run > 16) return "";
        continue;
      }
      row.append(run, '.');
      run = 0;
      row.push_back(c);
    }
    row.append(run, '.');
    rows.push_back(row);
  }
  const int n = static_cast<int>(rows.size());
  if (n < 1 || n > 26) return "";
  for (const std::string& row : rows) {
    if (static_cast<int>(row.size()) != n) return "";
  }
  std::vector<absl::string_view> counts = absl::StrSplit(fields[2], ',');
  const char* seats = counts.size() == 4 ? "wrbg" : "wb";

  std::string out;
  for (int r = 0; r < n; ++r) {
    const int rank = n - r;
    absl::StrAppend(&out, rank < 10 ? "   " : "  ", rank, " ");
    for (char c : rows[r]) absl::StrAppend(&out, " ", std::string(1, c));
    out.push_back('\n');
  }
  absl::StrAppend(&out, "     ");
  for (int f = 0; f < n; ++f) {
    absl::StrAppend(&out, " ", std::string(1, static_cast<char>('a' + f)));
  }
  out.push_back('\n');
  std::vector<std::string> made;
  for (size_t i = 0; i < counts.size() && seats[i] != '\0'; ++i) {
    made.push_back(absl::StrCat(std::string(1, seats[i]), " ", counts[i]));
  }
  absl::StrAppend(&out, "      to move: ", fields[1],
                  "   moves made: ", absl::StrJoin(made, ", "), "\n");
  return out;
}

void PrintPosition(absl::string_view label, absl::string_view position) {
  std::cout << label << ": " << position << "\n\n";
  const std::string diagram = BoardDiagram(position);
  if (!diagram.empty()) std::cout << diagram << "\n";
}

void PrintMoves(const v1::LegalMovesResponse& response) {
  std::string current;
  std::vector<std::string> steps, jumps;
  auto flush = [&] {
    if (current.empty()) return;
    std::string line = absl::StrCat("  ", current, ":");
    line.append(current.size() < 3 ? 4 - current.size() : 1, ' ');
    if (!steps.empty()) absl::StrAppend(&line, absl::StrJoin(steps, " "));
    if (!jumps.empty()) {
      absl::StrAppend(&line, steps.empty() ? "" : "   ",
                      "jumps: ", absl::StrJoin(jumps, " "));
    }
    std::cout << line << "\n";
    steps.clear();
    jumps.clear();
  };
  for (const v1::Move& move : response.moves()) {
    if (move.origin() != current) {
      flush();
      current = move.origin();
    }
    if (move.hops() == 0) {
      steps.push_back(move.destination());
    } else {
      jumps.push_back(move.path());
    }
  }
  flush();
}

}  // namespace halma::halmactl
