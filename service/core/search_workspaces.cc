#include "service/core/search_workspaces.h"

namespace halma::service {

SearchWorkspaces::Lease::~Lease() {
  if (pool_ != nullptr) pool_->Give(workspace_);
}

SearchWorkspaces::SearchWorkspaces(int count, int table_bits)
    : table_bits_(table_bits) {
  all_.reserve(count);
  free_.reserve(count);
  for (int i = 0; i < count; ++i) {
    all_.push_back(std::make_unique<bot::SearchWorkspace>(table_bits));
    free_.push_back(all_.back().get());
  }
}

SearchWorkspaces::Lease SearchWorkspaces::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.empty()) return Lease(nullptr, nullptr);
  bot::SearchWorkspace* workspace = free_.back();
  free_.pop_back();
  return Lease(this, workspace);
}

void SearchWorkspaces::Give(bot::SearchWorkspace* workspace) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(workspace);
}

std::size_t SearchWorkspaces::MemoryBytes() const {
  std::size_t bytes = 0;
  for (const auto& workspace : all_) bytes += workspace->MemoryBytes();
  return bytes;
}

}  // namespace halma::service
