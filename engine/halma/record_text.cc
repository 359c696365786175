#include "halma/record_text.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "halma/game_status.h"
#include "halma/move_check.h"
#include "halma/notation.h"
#include "halma/position.h"

namespace halma {
namespace {

// The column after which the formatter starts a new line of move text.
constexpr size_t kWrapColumn = 79;
// Digits a number in a tag value may have: 9 keep it in an int, far above
// kMaxMoveLimit.
constexpr size_t kMaxTagNumberDigits = 9;

// The tags the format gives a meaning (docs/record-format.md); every other
// tag is kept in TextRecord::extra_tags.
enum TagId {
  kVariantTag,
  kBoardSizeTag,
  kSeatsTag,
  kCampRowsTag,
  kHomeExitTag,
  kRoundCompletionTag,
  kTargetLockTag,
  kMoveCapTag,
  kPositionTag,
  kDateTag,
  kPlayerWTag,  // kPlayerWTag + SeatIndex(seat) for every seat.
  kPlayerRTag,
  kPlayerBTag,
  kPlayerGTag,
  kResultTag,
  kTagCount
};

constexpr const char* kTagNames[kTagCount] = {
    "Variant",         "BoardSize",  "Seats",   "CampRows", "HomeExit",
    "RoundCompletion", "TargetLock", "MoveCap", "Position", "Date",
    "PlayerW",         "PlayerR",    "PlayerB", "PlayerG",  "Result"};

constexpr char kCustom[] = "custom";

int TagIdOf(absl::string_view name) {
  for (int i = 0; i < kTagCount; ++i) {
    if (name == kTagNames[i]) return i;
  }
  return -1;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

std::string SeatList(const Variant& variant) {
  std::string out;
  for (int i = 0; i < variant.seat_count; ++i) {
    if (i > 0) out += ", ";
    out += SeatLetter(variant.seats[i]);
  }
  return out;
}

// The letters of a set of seats, in turn order.
std::string SeatLetters(SeatSet set) {
  std::string out;
  for (int i = 0; i < kMaxSeats; ++i) {
    if (set.Has(SeatAt(i))) out += SeatLetter(SeatAt(i));
  }
  return out;
}

// "a decimal number" of at most kMaxTagNumberDigits digits, no sign and
// no leading zeros.
bool ReadNumber(absl::string_view text, int* value) {
  if (text.empty() || text.size() > kMaxTagNumberDigits) return false;
  if (text.size() > 1 && text[0] == '0') return false;
  int v = 0;
  for (char c : text) {
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *value = v;
  return true;
}

constexpr const char* kWinRules[] = {"target-filled", "home-exit"};
constexpr const char* kDrawRules[] = {"target-filled", "move-cap",
                                      "everyone-stuck"};
constexpr MoveVerdict kIllegalVerdicts[] = {MoveVerdict::kGameOver,
                                            MoveVerdict::kPassNotAllowed,
                                            MoveVerdict::kEmptyOrigin,
                                            MoveVerdict::kNotYourPiece,
                                            MoveVerdict::kDestinationOccupied,
                                            MoveVerdict::kNothingToJump,
                                            MoveVerdict::kNotAHop,
                                            MoveVerdict::kSquareVisitedTwice,
                                            MoveVerdict::kLeavesTarget,
                                            MoveVerdict::kUnreachable};

std::string IllegalReasons() {
  std::vector<std::string> names;
  for (MoveVerdict v : kIllegalVerdicts) names.push_back(MoveVerdictName(v));
  return absl::StrJoin(names, ", ");
}

// The presets, made once: a variant's masks cost more to make than most
// records cost to read.
const Variant* FindPreset(absl::string_view name) {
  static const std::vector<Variant>* const presets = [] {
    auto* out = new std::vector<Variant>;
    for (const std::string& preset : PresetNames()) {
      absl::StatusOr<Variant> v = PresetVariant(preset);
      if (v.ok()) out->push_back(*std::move(v));
    }
    return out;
  }();
  for (const Variant& v : *presets) {
    if (v.spec.name == name) return &v;
  }
  return nullptr;
}

bool SameSpec(const VariantSpec& x, const VariantSpec& y) {
  return x.name == y.name && x.board_size == y.board_size &&
         x.seat_count == y.seat_count && x.camp_rows == y.camp_rows &&
         x.home_exit_limit == y.home_exit_limit &&
         x.round_completion == y.round_completion &&
         x.target_lock == y.target_lock && x.move_cap == y.move_cap;
}

// Reads a result token (docs/record-format.md, "Result tokens") of a
// record of `variant`. On success `*canonical` is its canonical form and
// `*illegal_ply` the ply of an illegal: token (0 for the others); on
// failure the status message says what was found and what was expected.
absl::Status ReadResultToken(absl::string_view token, const Variant& variant,
                             std::string* canonical, int* illegal_ply) {
  *illegal_ply = 0;
  const auto bad = [&](absl::string_view expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        "found result ", QuoteForError(token), ", expected ", expected));
  };
  if (token == "*") {
    *canonical = "*";
    return absl::OkStatus();
  }
  const size_t first = token.find(':');
  const size_t second =
      first == absl::string_view::npos ? first : token.find(':', first + 1);
  const char kGrammar[] =
      "a result token: *, win:<seat>:<rule>, draw:<seats>:<rule> or "
      "illegal:<ply>:<reason>";
  if (second == absl::string_view::npos) return bad(kGrammar);
  const absl::string_view kind = token.substr(0, first);
  const absl::string_view middle = token.substr(first + 1, second - first - 1);
  const absl::string_view last = token.substr(second + 1);
  if (kind == "win" || kind == "draw") {
    const bool win = kind == "win";
    SeatSet seats;
    bool seats_ok = win ? middle.size() == 1 : middle.size() >= 2;
    for (size_t i = 0; seats_ok && i < middle.size(); ++i) {
      Seat seat;
      if (!SeatFromLetter(middle[i], &seat) || !variant.in_play.Has(seat) ||
          seats.Has(seat)) {
        seats_ok = false;
      } else {
        seats.Add(seat);
      }
    }
    if (!seats_ok) {
      return bad(win ? absl::StrCat("win:<seat>:<rule> with one seat in play (",
                                    SeatList(variant), ")")
                     : absl::StrCat("draw:<seats>:<rule> with two or more "
                                    "different seats in play (",
                                    SeatList(variant), ")"));
    }
    bool rule_ok = false;
    if (win) {
      for (const char* rule : kWinRules) rule_ok = rule_ok || last == rule;
    } else {
      for (const char* rule : kDrawRules) rule_ok = rule_ok || last == rule;
    }
    if (!rule_ok) {
      return bad(win ? "the rule of a win: target-filled or home-exit"
                     : "the rule of a draw: target-filled, move-cap or "
                       "everyone-stuck");
    }
    canonical->assign(kind.data(), kind.size());
    *canonical += ':';
    *canonical += SeatLetters(seats);
    *canonical += ':';
    canonical->append(last.data(), last.size());
    return absl::OkStatus();
  }
  if (kind == "illegal") {
    int ply = 0;
    if (!ReadNumber(middle, &ply) || ply < 1) {
      return bad(
          "illegal:<ply>:<reason> with the ply a number from 1 (no leading "
          "zeros)");
    }
    for (MoveVerdict v : kIllegalVerdicts) {
      if (last == MoveVerdictName(v)) {
        *canonical = absl::StrCat("illegal:", ply, ":", last);
        *illegal_ply = ply;
        return absl::OkStatus();
      }
    }
    return bad(absl::StrCat("the reason of an illegal move: one of ",
                            IllegalReasons()));
  }
  return bad(kGrammar);
}

// Who moves at each ply of a record and which number the move bears
// (docs/record-format.md, "Move numbers"): a move's number is its seat's
// count of moves before it plus one, and a round begins with a move whose
// number is greater than that of the move before it. The seat to move is
// the next seat still playing; in four-player variants with a home-exit
// limit, seats are eliminated in play, so there the record is replayed
// (CheckMove) until it ends or has an illegal move; from then on the turn
// goes round the seats still playing at that point.
class Turns {
 public:
  Turns(const Variant* variant, const Position& start) : variant_(variant) {
    seat_count_ = variant->seat_count;
    for (int i = 0; i < seat_count_; ++i) order_[i] = variant->seats[i];
    for (int i = 0; i < kMaxSeats; ++i) {
      counts_[i] = static_cast<uint64_t>(start.move_count[i]);
    }
    mover_ = start.to_move;
    playing_ = SeatsStillPlaying(*variant, start);
    if (variant->seat_count == 4 && variant->spec.home_exit_limit > 0) {
      position_ = start;
      status_ = EvaluateStatus(*variant, start);
      replaying_ = !status_.over;
    }
  }
  // For a record whose variant or start position is not valid: every seat
  // in turn, from the first, none having moved.
  explicit Turns(int seat_count) {
    seat_count_ = seat_count == 4 ? 4 : 2;
    for (int i = 0; i < seat_count_; ++i) {
      order_[i] = seat_count_ == 4 ? SeatAt(i) : SeatAt(2 * i);
      playing_.Add(order_[i]);
    }
    mover_ = order_[0];
  }

  Seat mover() const { return mover_; }
  uint64_t Number() const { return counts_[SeatIndex(mover_)] + 1; }
  bool RoundStart() const {
    if (!first_) return Number() > last_number_;
    for (int i = 0; i < kMaxSeats; ++i) {
      if (playing_.Has(SeatAt(i)) && counts_[i] > counts_[SeatIndex(mover_)]) {
        return false;
      }
    }
    return true;
  }
  // The mover has made `move` (null when it is not a well-formed move).
  void Advance(const MoveText* move) {
    last_number_ = Number();
    first_ = false;
    ++counts_[SeatIndex(mover_)];
    if (replaying_) {
      if (move != nullptr && CheckRoomForMove(position_).ok()) {
        MoveCheck check = CheckMove(*variant_, position_, status_, *move,
                                    MoveDetail::kPositionOnly);
        if (check.verdict == MoveVerdict::kLegal) {
          position_ = check.after;
          status_ = EvaluateStatus(*variant_, position_);
          mover_ = position_.to_move;
          if (status_.over) {
            replaying_ = false;
            playing_ = SeatsStillPlaying(*variant_, position_);
          }
          return;
        }
      }
      replaying_ = false;
      playing_ = SeatsStillPlaying(*variant_, position_);
    }
    int at = 0;
    while (at < seat_count_ && order_[at] != mover_) ++at;
    for (int i = 1; i <= seat_count_; ++i) {
      const Seat next = order_[(at + i) % seat_count_];
      if (playing_.Has(next)) {
        mover_ = next;
        return;
      }
    }
    mover_ = order_[(at + 1) % seat_count_];
  }

 private:
  const Variant* variant_ = nullptr;
  int seat_count_ = 2;
  Seat order_[kMaxSeats] = {};
  SeatSet playing_;
  uint64_t counts_[kMaxSeats] = {0, 0, 0, 0};
  Seat mover_ = Seat::kW;
  bool first_ = true;
  uint64_t last_number_ = 0;
  bool replaying_ = false;
  Position position_;
  GameStatus status_;
};

// A comment's text as stored: line breaks (CRLF, CR) made LF, whitespace
// around it removed.
std::string CommentText(absl::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\r') {
      out += '\n';
      if (i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
    } else {
      out += raw[i];
    }
  }
  size_t begin = 0, end = out.size();
  while (begin < end && IsSpace(out[begin])) ++begin;
  while (end > begin && IsSpace(out[end - 1])) --end;
  return out.substr(begin, end - begin);
}

class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text) {
    if (absl::StartsWith(text_, "\xEF\xBB\xBF")) at_ = 3;  // A UTF-8 BOM.
  }

  absl::StatusOr<std::vector<TextRecord>> Parse(bool single) {
    std::vector<TextRecord> records;
    while (true) {
      SkipSpace();
      if (at_ == text_.size()) break;
      if (text_[at_] != '[') {
        return Found(at_, records.empty()
                              ? "a record, beginning with its tag "
                                "[Variant \"...\"]"
                              : "the end of the text or the next record, "
                                "beginning with its tag [Variant \"...\"]");
      }
      if (single && !records.empty()) {
        return Error(at_, "found a second record, expected one record only");
      }
      records.emplace_back();
      if (absl::Status s = ParseRecord(&records.back()); !s.ok()) return s;
    }
    if (records.empty()) {
      return Found(at_, "a record, beginning with its tag [Variant \"...\"]");
    }
    return records;
  }

 private:
  struct Tag {
    bool present = false;
    absl::string_view name;
    size_t start = 0;     // The '['.
    size_t value_at = 0;  // The first character after the opening quote.
    std::string value;
  };

  // "line L, column C: message": lines end at LF, CRLF or CR; columns
  // count bytes.
  absl::Status Error(size_t at, absl::string_view message) const {
    at = std::min(at, text_.size());
    size_t line = 1, line_start = 0;
    for (size_t i = 0; i < at; ++i) {
      const char c = text_[i];
      if (c == '\n' ||
          (c == '\r' && (i + 1 == text_.size() || text_[i + 1] != '\n'))) {
        ++line;
        line_start = i + 1;
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "line ", line, ", column ", at - line_start + 1, ": ", message));
  }

  // What stands at `at`, for a message: the word there, quoted, or the end
  // of the text.
  std::string Describe(size_t at) const {
    if (at >= text_.size()) return "the end of the text";
    size_t end = at + 1;
    while (end < text_.size() && !IsSpace(text_[end])) ++end;
    return QuoteForError(text_.substr(at, end - at));
  }

  absl::Status Found(size_t at, absl::string_view expected) const {
    return Error(at,
                 absl::StrCat("found ", Describe(at), ", expected ", expected));
  }
  absl::Status Found(size_t at, absl::string_view found,
                     absl::string_view expected) const {
    return Error(at, absl::StrCat("found ", found, ", expected ", expected));
  }

  void SkipSpace() {
    while (at_ < text_.size() && IsSpace(text_[at_])) ++at_;
  }

  // Reads `[Name "value"]` at at_ (a '[').
  absl::Status ReadTag(Tag* tag) {
    tag->present = true;
    tag->start = at_;
    ++at_;
    SkipSpace();
    const size_t name_at = at_;
    if (at_ == text_.size() || !IsLetter(text_[at_])) {
      return Found(at_, "a tag name (a letter, then letters, digits or _)");
    }
    while (at_ < text_.size() &&
           (IsLetter(text_[at_]) || IsDigit(text_[at_]) || text_[at_] == '_')) {
      ++at_;
    }
    tag->name = text_.substr(name_at, at_ - name_at);
    SkipSpace();
    if (at_ == text_.size() || text_[at_] != '"') {
      return Found(at_, absl::StrCat("the value of tag ", tag->name,
                                     " in double quotes"));
    }
    ++at_;
    tag->value_at = at_;
    tag->value.clear();
    while (true) {
      if (at_ == text_.size()) {
        return Found(at_,
                     absl::StrCat("\" to end the value of tag ", tag->name));
      }
      const unsigned char c = static_cast<unsigned char>(text_[at_]);
      if (c == '"') break;
      if (c == '\n' || c == '\r') {
        return Found(at_, "a line break",
                     absl::StrCat("\" to end the value of tag ", tag->name,
                                  " on its line"));
      }
      if (c == '\\') {
        if (at_ + 1 < text_.size() &&
            (text_[at_ + 1] == '"' || text_[at_ + 1] == '\\')) {
          tag->value += text_[at_ + 1];
          at_ += 2;
          continue;
        }
        return Found(at_, QuoteForError(text_.substr(at_, 2)),
                     "\\\" or \\\\, the only escapes in a tag value");
      }
      if (c < 0x20 || c == 0x7f) {
        return Found(at_, QuoteForError(text_.substr(at_, 1)),
                     absl::StrCat("a printable character or \" to end the "
                                  "value of tag ",
                                  tag->name));
      }
      tag->value += text_[at_];
      ++at_;
    }
    ++at_;
    SkipSpace();
    if (at_ == text_.size() || text_[at_] != ']') {
      return Found(at_, absl::StrCat("] to close tag ", tag->name));
    }
    ++at_;
    return absl::OkStatus();
  }

  absl::Status TagError(const Tag& tag, absl::string_view message) const {
    return Error(tag.value_at, absl::StrCat("tag ", tag.name, ": ", message));
  }
  absl::Status BadTagValue(const Tag& tag, absl::string_view expected) const {
    return TagError(tag, absl::StrCat("found ", QuoteForError(tag.value),
                                      ", expected ", expected));
  }

  absl::Status NumberTag(const Tag& tag, int* value) const {
    if (!ReadNumber(tag.value, value)) {
      return BadTagValue(
          tag, "a decimal number (digits, no sign, no leading zeros)");
    }
    return absl::OkStatus();
  }

  absl::Status OnOffTag(const Tag& tag, bool* value) const {
    if (tag.value == "on" || tag.value == "off") {
      *value = tag.value == "on";
      return absl::OkStatus();
    }
    return BadTagValue(tag, "on or off");
  }

  absl::Status ReadVariant(const Tag* tags, const Variant** variant) {
    const Tag& name = tags[kVariantTag];
    if (name.value != kCustom) {
      for (int id = kBoardSizeTag; id <= kMoveCapTag; ++id) {
        if (tags[id].present) {
          return Found(
              tags[id].start,
              absl::StrCat("tag ", kTagNames[id], " with the preset variant ",
                           QuoteForError(name.value)),
              "the variant's field tags only with [Variant "
              "\"custom\"]");
        }
      }
      const Variant* preset = FindPreset(name.value);
      if (preset == nullptr) {
        return BadTagValue(
            name, absl::StrCat("a preset (", absl::StrJoin(PresetNames(), ", "),
                               ") or custom"));
      }
      *variant = preset;
      return absl::OkStatus();
    }
    for (int id : {kBoardSizeTag, kSeatsTag, kCampRowsTag, kHomeExitTag,
                   kRoundCompletionTag, kTargetLockTag}) {
      if (!tags[id].present) {
        return Found(name.start,
                     absl::StrCat("[Variant \"custom\"] without a ",
                                  kTagNames[id], " tag"),
                     "the tags BoardSize, Seats, CampRows, HomeExit, "
                     "RoundCompletion and TargetLock (and optionally MoveCap) "
                     "in a record of a custom variant");
      }
    }
    VariantSpec spec;
    if (absl::Status s = NumberTag(tags[kBoardSizeTag], &spec.board_size);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = NumberTag(tags[kSeatsTag], &spec.seat_count);
        !s.ok()) {
      return s;
    }
    {
      const Tag& rows = tags[kCampRowsTag];
      absl::string_view rest = rows.value;
      while (true) {
        const size_t comma = rest.find(',');
        int row = 0;
        if (!ReadNumber(rest.substr(0, comma), &row)) {
          return BadTagValue(rows,
                             "row lengths from the corner's edge, decimal "
                             "numbers separated by commas, like \"4,3,2,1\"");
        }
        spec.camp_rows.push_back(row);
        if (comma == absl::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
    if (absl::Status s = NumberTag(tags[kHomeExitTag], &spec.home_exit_limit);
        !s.ok()) {
      return s;
    }
    if (absl::Status s =
            OnOffTag(tags[kRoundCompletionTag], &spec.round_completion);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = OnOffTag(tags[kTargetLockTag], &spec.target_lock);
        !s.ok()) {
      return s;
    }
    if (tags[kMoveCapTag].present) {
      if (absl::Status s = NumberTag(tags[kMoveCapTag], &spec.move_cap);
          !s.ok()) {
        return s;
      }
    }
    if (custom_.has_value() && SameSpec(custom_->spec, spec)) {
      *variant = &*custom_;
      return absl::OkStatus();
    }
    absl::StatusOr<Variant> made = MakeVariant(spec);
    if (!made.ok()) {
      // MakeVariant names the field; the message points at its tag.
      static constexpr std::pair<const char*, TagId> kFields[] = {
          {"variant board_size", kBoardSizeTag},
          {"variant seat_count", kSeatsTag},
          {"variant camp_rows", kCampRowsTag},
          {"variant home_exit_limit", kHomeExitTag},
          {"variant move_cap", kMoveCapTag}};
      const Tag* at = &name;
      for (const auto& [field, id] : kFields) {
        if (absl::StartsWith(made.status().message(), field) &&
            tags[id].present) {
          at = &tags[id];
        }
      }
      return TagError(*at, made.status().message());
    }
    custom_ = *std::move(made);
    *variant = &*custom_;
    return absl::OkStatus();
  }

  absl::Status ParseRecord(TextRecord* record) {
    Tag tags[kTagCount];
    {
      Tag first;
      if (absl::Status s = ReadTag(&first); !s.ok()) return s;
      if (first.name != "Variant") {
        return Found(first.start,
                     absl::StrCat("tag ", QuoteForError(first.name)),
                     "[Variant \"...\"], the tag every record begins with");
      }
      tags[kVariantTag] = std::move(first);
    }
    // The tag section; another Variant tag begins the next record.
    bool next_record = false;
    while (true) {
      SkipSpace();
      if (at_ == text_.size() || text_[at_] != '[') break;
      const size_t start = at_;
      Tag tag;
      if (absl::Status s = ReadTag(&tag); !s.ok()) return s;
      if (tag.name == "Variant") {
        at_ = start;
        next_record = true;
        break;
      }
      const int id = TagIdOf(tag.name);
      if (id < 0) {
        record->extra_tags.emplace_back(std::string(tag.name),
                                        std::move(tag.value));
        continue;
      }
      if (tags[id].present) {
        return Found(tag.start,
                     absl::StrCat("a second ", kTagNames[id], " tag"),
                     absl::StrCat("each of the format's tags at most once (",
                                  kTagNames[id], " was given at ",
                                  Where(tags[id].start), ")"));
      }
      tags[id] = std::move(tag);
    }

    const Variant* read = nullptr;
    if (absl::Status s = ReadVariant(tags, &read); !s.ok()) return s;
    const Variant& variant = *read;
    record->variant = variant.spec;

    Position start = StartPosition(variant);
    if (tags[kPositionTag].present && !tags[kPositionTag].value.empty()) {
      absl::StatusOr<Position> parsed =
          ParsePosition(tags[kPositionTag].value, variant);
      if (!parsed.ok()) {
        return TagError(tags[kPositionTag], parsed.status().message());
      }
      start = *parsed;
      if (!(start == StartPosition(variant))) {
        record->start_position = FormatPosition(start, variant);
      }
    }
    bool any_player = false;
    for (int i = 0; i < kMaxSeats; ++i) {
      const Tag& tag = tags[kPlayerWTag + i];
      if (!tag.present) continue;
      if (!variant.in_play.Has(SeatAt(i))) {
        std::vector<std::string> names;
        for (int j = 0; j < variant.seat_count; ++j) {
          names.push_back(kTagNames[kPlayerWTag + SeatIndex(variant.seats[j])]);
        }
        return Found(tag.start, absl::StrCat("tag ", tag.name),
                     absl::StrCat("player tags of the seats in play: ",
                                  absl::StrJoin(names, ", ")));
      }
      any_player = any_player || !tag.value.empty();
    }
    if (any_player) {
      for (int i = 0; i < variant.seat_count; ++i) {
        record->players.push_back(
            tags[kPlayerWTag + SeatIndex(variant.seats[i])].value);
      }
    }
    record->date = tags[kDateTag].value;
    int illegal_ply = 0;
    size_t result_at = 0;
    if (tags[kResultTag].present) {
      if (absl::Status s = ReadResultToken(tags[kResultTag].value, variant,
                                           &record->result, &illegal_ply);
          !s.ok()) {
        return TagError(tags[kResultTag], s.message());
      }
      result_at = tags[kResultTag].value_at;
    }
    if (next_record) return CheckIllegalPly(*record, illegal_ply, result_at);

    // The move text.
    Turns turns(&variant, start);
    bool numbered = false;  // A move number waits for its move.
    std::string number_text;
    const auto move_after_number = [&](size_t at) {
      return Found(at,
                   absl::StrCat("a move after ", QuoteForError(number_text)));
    };
    while (true) {
      SkipSpace();
      if (at_ == text_.size()) {
        if (numbered) return move_after_number(at_);
        break;
      }
      const char c = text_[at_];
      if (c == '{') {
        const size_t close = text_.find('}', at_ + 1);
        if (close == absl::string_view::npos) {
          return Found(at_, "a comment \"{\" that is never closed",
                       "} to end the comment");
        }
        record->comments.emplace_back(
            static_cast<int>(record->moves.size()),
            CommentText(text_.substr(at_ + 1, close - at_ - 1)));
        at_ = close + 1;
        continue;
      }
      if (c == ';') {
        size_t end = text_.find_first_of("\r\n", at_ + 1);
        if (end == absl::string_view::npos) end = text_.size();
        record->comments.emplace_back(
            static_cast<int>(record->moves.size()),
            CommentText(text_.substr(at_ + 1, end - at_ - 1)));
        at_ = end;
        continue;
      }
      if (c == '[') {
        if (numbered) return move_after_number(at_);
        const size_t start_at = at_;
        Tag tag;
        if (absl::Status s = ReadTag(&tag); !s.ok()) return s;
        if (tag.name != "Variant") {
          return Found(start_at,
                       absl::StrCat("tag ", tag.name, " in the move text"),
                       "tags before the moves, or [Variant \"...\"] to begin "
                       "the next record");
        }
        at_ = start_at;
        break;
      }
      size_t end = at_;
      while (end < text_.size() && !IsSpace(text_[end]) && text_[end] != '{' &&
             text_[end] != ';' && text_[end] != '[') {
        ++end;
      }
      const absl::string_view word = text_.substr(at_, end - at_);
      if (word == "*" || absl::StrContains(word, ':')) {
        if (numbered) return move_after_number(at_);
        std::string token;
        int ply = 0;
        if (absl::Status s = ReadResultToken(word, variant, &token, &ply);
            !s.ok()) {
          return Error(at_, s.message());
        }
        if (tags[kResultTag].present && token != record->result) {
          return Found(at_, QuoteForError(word),
                       absl::StrCat(QuoteForError(record->result),
                                    ", the result the Result tag gives at ",
                                    Where(tags[kResultTag].start)));
        }
        record->result = std::move(token);
        illegal_ply = ply;
        result_at = at_;
        at_ = end;
        break;
      }
      if (IsDigit(c)) {
        size_t digits = at_;
        while (digits < end && IsDigit(text_[digits])) ++digits;
        size_t dots = digits;
        while (dots < end && text_[dots] == '.') ++dots;
        const size_t dot_count = dots - digits;
        const absl::string_view number = text_.substr(at_, dots - at_);
        if (dot_count != 1 && dot_count != 3) {
          return Found(at_, QuoteForError(word),
                       "a move number like \"12.\" (a round's first move) or "
                       "\"12...\" (a later move of the round)");
        }
        if (numbered) {
          return Found(
              at_, QuoteForError(number),
              absl::StrCat("a move after ", QuoteForError(number_text)));
        }
        const std::string want = absl::StrCat(turns.Number());
        const bool round = turns.RoundStart();
        const std::string seat(1, SeatLetter(turns.mover()));
        if (round &&
            (dot_count != 1 || text_.substr(at_, digits - at_) != want)) {
          return Found(at_, QuoteForError(number),
                       absl::StrCat("\"", want, ".\": ", seat,
                                    "'s move begins round ", want));
        }
        if (!round &&
            (dot_count != 3 || text_.substr(at_, digits - at_) != want)) {
          return Found(at_, QuoteForError(number),
                       absl::StrCat("a move, or \"", want, "...\": ", seat,
                                    "'s move is a later move of round ", want));
        }
        numbered = true;
        number_text = std::string(number);
        at_ = dots;  // A move may follow without a space ("1.b1-d3").
        continue;
      }
      absl::StatusOr<MoveText> move = ParseMove(word, variant.size);
      if (!move.ok()) return Error(at_, move.status().message());
      if (!numbered) {
        const std::string want = absl::StrCat(turns.Number());
        const std::string seat(1, SeatLetter(turns.mover()));
        if (turns.RoundStart()) {
          return Found(
              at_, QuoteForError(word),
              absl::StrCat("the move number \"", want, ".\" before it: ", seat,
                           "'s move begins round ", want));
        }
        if (record->moves.empty()) {
          return Found(
              at_, QuoteForError(word),
              absl::StrCat("the move number \"", want,
                           "...\" before the record's first move: ", seat,
                           " moves first, later in round ", want));
        }
      }
      record->moves.push_back(FormatMove(*move));
      turns.Advance(&*move);
      numbered = false;
      at_ = end;
    }
    return CheckIllegalPly(*record, illegal_ply, result_at);
  }

  absl::Status CheckIllegalPly(const TextRecord& record, int ply,
                               size_t at) const {
    if (ply <= static_cast<int>(record.moves.size())) return absl::OkStatus();
    return Found(
        at, QuoteForError(record.result),
        record.moves.empty()
            ? std::string("no illegal:<ply> result in a record "
                          "without moves")
            : absl::StrCat("illegal:<ply> with a ply from 1 to ",
                           record.moves.size(), ", the record's moves"));
  }

  std::string Where(size_t at) const {
    const absl::Status s = Error(at, "");
    absl::string_view m = s.message();
    m.remove_suffix(2);  // ": "
    return std::string(m);
  }

  absl::string_view text_;
  size_t at_ = 0;
  // The last custom variant read: records of one text often share it.
  std::optional<Variant> custom_;
};

// Move text, wrapped before kWrapColumn.
class MoveTextWriter {
 public:
  explicit MoveTextWriter(std::string* out) : out_(out) {}
  void Token(absl::string_view token) {
    if (line_ > 0) {
      if (line_ + 1 + token.size() > kWrapColumn) {
        *out_ += '\n';
        line_ = 0;
      } else {
        *out_ += ' ';
        ++line_;
      }
    }
    out_->append(token.data(), token.size());
    const size_t newline = token.rfind('\n');
    line_ = newline == absl::string_view::npos ? line_ + token.size()
                                               : token.size() - newline - 1;
    any_ = true;
  }
  // A `;` comment: to the end of the line.
  void LineComment(absl::string_view text) {
    Token(text.empty() ? std::string(";") : absl::StrCat("; ", text));
    *out_ += '\n';
    line_ = 0;
  }
  void Finish() {
    if (any_ && line_ > 0) *out_ += '\n';
  }

 private:
  std::string* out_;
  size_t line_ = 0;
  bool any_ = false;
};

void AppendTag(std::string* out, absl::string_view name,
               absl::string_view value) {
  absl::StrAppend(out, "[", name, " \"");
  for (char c : value) {
    if (c == '"' || c == '\\') *out += '\\';
    *out += c;
  }
  *out += "\"]\n";
}

}  // namespace

bool operator==(const TextRecord& a, const TextRecord& b) {
  const VariantSpec& x = a.variant;
  const VariantSpec& y = b.variant;
  return x.name == y.name && x.board_size == y.board_size &&
         x.seat_count == y.seat_count && x.camp_rows == y.camp_rows &&
         x.home_exit_limit == y.home_exit_limit &&
         x.round_completion == y.round_completion &&
         x.target_lock == y.target_lock && x.move_cap == y.move_cap &&
         a.start_position == b.start_position && a.extra_tags == b.extra_tags &&
         a.players == b.players && a.date == b.date && a.moves == b.moves &&
         a.comments == b.comments && a.result == b.result;
}

absl::StatusOr<std::vector<TextRecord>> ParseTextRecords(
    absl::string_view text) {
  return Parser(text).Parse(/*single=*/false);
}

absl::StatusOr<TextRecord> ParseTextRecord(absl::string_view text) {
  absl::StatusOr<std::vector<TextRecord>> records =
      Parser(text).Parse(/*single=*/true);
  if (!records.ok()) return records.status();
  return std::move(records->front());
}

std::string FormatTextRecord(const TextRecord& record) {
  std::string out;
  const VariantSpec& spec = record.variant;
  absl::StatusOr<Variant> made;
  const Variant* preset = nullptr;
  if (spec.name.empty()) {
    made = MakeVariant(spec);
  } else if ((preset = FindPreset(spec.name)) == nullptr) {
    made = PresetVariant(spec.name);  // The error.
  }
  const Variant* variant =
      preset != nullptr ? preset : (made.ok() ? &*made : nullptr);
  if (!spec.name.empty()) {
    AppendTag(&out, "Variant", spec.name);
  } else {
    AppendTag(&out, "Variant", kCustom);
    AppendTag(&out, "BoardSize", absl::StrCat(spec.board_size));
    AppendTag(&out, "Seats", absl::StrCat(spec.seat_count));
    AppendTag(&out, "CampRows", absl::StrJoin(spec.camp_rows, ","));
    AppendTag(&out, "HomeExit", absl::StrCat(spec.home_exit_limit));
    AppendTag(&out, "RoundCompletion", spec.round_completion ? "on" : "off");
    AppendTag(&out, "TargetLock", spec.target_lock ? "on" : "off");
    if (spec.move_cap != 0) {
      AppendTag(&out, "MoveCap", absl::StrCat(spec.move_cap));
    }
  }
  // The start position in canonical form, left out when it is the
  // variant's start.
  bool start_ok = variant != nullptr;
  Position start;
  if (variant != nullptr) start = StartPosition(*variant);
  if (!record.start_position.empty()) {
    absl::StatusOr<Position> parsed =
        (variant != nullptr)
            ? ParsePosition(record.start_position, *variant)
            : absl::StatusOr<Position>(absl::InvalidArgumentError(""));
    if (parsed.ok()) {
      start = *parsed;
      if (!(start == StartPosition(*variant))) {
        AppendTag(&out, "Position", FormatPosition(start, *variant));
      }
    } else {
      start_ok = false;
      AppendTag(&out, "Position", record.start_position);
    }
  }
  if (!record.date.empty()) AppendTag(&out, "Date", record.date);
  {
    Seat seats[kMaxSeats];
    int count = 0;
    if (variant != nullptr) {
      count = variant->seat_count;
      for (int i = 0; i < count; ++i) seats[i] = variant->seats[i];
    } else {
      count = spec.seat_count == 4 ? 4 : 2;
      for (int i = 0; i < count; ++i) seats[i] = SeatAt(count == 4 ? i : 2 * i);
    }
    for (int i = 0; i < count && i < static_cast<int>(record.players.size());
         ++i) {
      if (record.players[i].empty()) continue;
      AppendTag(&out, kTagNames[kPlayerWTag + SeatIndex(seats[i])],
                record.players[i]);
    }
  }
  for (const auto& [name, value] : record.extra_tags) {
    AppendTag(&out, name, value);
  }
  if (!record.result.empty()) AppendTag(&out, "Result", record.result);

  const int move_count = static_cast<int>(record.moves.size());
  if (move_count == 0 && record.comments.empty() && record.result.empty()) {
    return out;
  }
  out += '\n';
  // Comments in ply order (a stable sort keeps their order within a ply),
  // plies outside the record clamped to it.
  std::vector<std::pair<int, int>> comments;  // (ply, index)
  for (int i = 0; i < static_cast<int>(record.comments.size()); ++i) {
    comments.emplace_back(std::clamp(record.comments[i].first, 0, move_count),
                          i);
  }
  std::stable_sort(
      comments.begin(), comments.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  Turns turns = start_ok ? Turns(variant, start) : Turns(spec.seat_count);
  MoveTextWriter writer(&out);
  size_t next_comment = 0;
  for (int ply = 0; ply <= move_count; ++ply) {
    bool after_comment = false;
    while (next_comment < comments.size() &&
           comments[next_comment].first == ply) {
      const std::string& text =
          record.comments[comments[next_comment].second].second;
      if (absl::StrContains(text, '}')) {
        writer.LineComment(text);
      } else {
        writer.Token(absl::StrCat("{", text, "}"));
      }
      after_comment = true;
      ++next_comment;
    }
    if (ply == move_count) break;
    // A number and its move stay on one line.
    const std::string& move = record.moves[ply];
    if (turns.RoundStart()) {
      writer.Token(absl::StrCat(turns.Number(), ". ", move));
    } else if (ply == 0 || after_comment) {
      writer.Token(absl::StrCat(turns.Number(), "... ", move));
    } else {
      writer.Token(move);
    }
    absl::StatusOr<MoveText> parsed =
        (variant != nullptr)
            ? ParseMove(move, variant->size)
            : absl::StatusOr<MoveText>(absl::InvalidArgumentError(""));
    turns.Advance(parsed.ok() ? &*parsed : nullptr);
  }
  if (!record.result.empty()) writer.Token(record.result);
  writer.Finish();
  return out;
}

std::string ResultToken(const Variant& variant,
                        const GameRecordResult& result) {
  if (result.illegal_ply > 0) {
    return absl::StrCat("illegal:", result.illegal_ply, ":",
                        MoveVerdictName(result.illegal_verdict));
  }
  if (!result.status.over) return "*";
  std::string seats;
  for (int i = 0; i < variant.seat_count; ++i) {
    if (result.status.winners.Has(variant.seats[i])) {
      seats += SeatLetter(variant.seats[i]);
    }
  }
  return absl::StrCat(result.status.winners.Count() == 1 ? "win:" : "draw:",
                      seats, ":", DecidingRuleName(result.status.rule));
}

}  // namespace halma
