// The memory of SuggestMove's searches: one halma::bot::SearchWorkspace (a
// transposition table and fixed-size move stacks) per slot of the
// admission gate, allocated once at start-up. A search allocates nothing,
// so the memory the suggestions use is this pool's, whatever the budgets
// asked for (docs/bot.md, "Bounds").
#ifndef HALMA_SERVICE_CORE_SEARCH_WORKSPACES_H_
#define HALMA_SERVICE_CORE_SEARCH_WORKSPACES_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "halma/bot/search.h"

namespace halma::service {

class SearchWorkspaces {
 public:
  // A workspace lent to one search, given back when destroyed.
  class Lease {
   public:
    Lease(Lease&& other) noexcept
        : pool_(other.pool_), workspace_(other.workspace_) {
      other.pool_ = nullptr;
      other.workspace_ = nullptr;
    }
    Lease& operator=(Lease&&) = delete;
    ~Lease();

    explicit operator bool() const { return workspace_ != nullptr; }
    bot::SearchWorkspace* get() const { return workspace_; }

   private:
    friend class SearchWorkspaces;
    Lease(SearchWorkspaces* pool, bot::SearchWorkspace* workspace)
        : pool_(pool), workspace_(workspace) {}

    SearchWorkspaces* pool_;
    bot::SearchWorkspace* workspace_;
  };

  // `count` workspaces of 2^table_bits table entries each.
  SearchWorkspaces(int count, int table_bits);
  SearchWorkspaces(const SearchWorkspaces&) = delete;
  SearchWorkspaces& operator=(const SearchWorkspaces&) = delete;

  // A free workspace, or an empty lease when all are lent (more searches at
  // once than the pool was made for: the admission gate prevents it).
  Lease Take();

  int count() const { return static_cast<int>(all_.size()); }
  int table_bits() const { return table_bits_; }
  // Bytes the pool holds.
  std::size_t MemoryBytes() const;

 private:
  void Give(bot::SearchWorkspace* workspace);

  const int table_bits_;
  std::vector<std::unique_ptr<bot::SearchWorkspace>> all_;
  std::mutex mu_;
  std::vector<bot::SearchWorkspace*> free_;  // Guarded by mu_.
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_CORE_SEARCH_WORKSPACES_H_
