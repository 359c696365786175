// A bound on how many calls of one kind are being answered at once.
#ifndef HALMA_SERVICE_CONCURRENCY_LIMIT_H_
#define HALMA_SERVICE_CONCURRENCY_LIMIT_H_

#include <atomic>

namespace halma::service {

// Lock-free: TryAcquire is one atomic add, so checking the limit costs a
// rejected call nothing measurable and never waits. There is no queue on
// purpose: work beyond the limit is refused at once (RESOURCE_EXHAUSTED),
// so that a flood of expensive calls cannot build a backlog that delays
// everyone else.
class ConcurrencyLimit {
 public:
  // A held slot; releases it when destroyed. Empty (false) when refused.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept : owner_(other.owner_) {
      other.owner_ = nullptr;
    }
    Slot& operator=(Slot&&) = delete;
    ~Slot() {
      if (owner_ != nullptr) owner_->in_use_.fetch_sub(1);
    }
    explicit operator bool() const { return owner_ != nullptr; }

   private:
    friend class ConcurrencyLimit;
    explicit Slot(ConcurrencyLimit* owner) : owner_(owner) {}
    ConcurrencyLimit* owner_ = nullptr;
  };

  explicit ConcurrencyLimit(int limit) : limit_(limit) {}
  ConcurrencyLimit(const ConcurrencyLimit&) = delete;
  ConcurrencyLimit& operator=(const ConcurrencyLimit&) = delete;

  Slot TryAcquire() {
    if (in_use_.fetch_add(1) >= limit_) {
      in_use_.fetch_sub(1);
      return Slot();
    }
    return Slot(this);
  }

  int limit() const { return limit_; }
  int in_use() const { return in_use_.load(); }

 private:
  const int limit_;
  std::atomic<int> in_use_{0};
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_CONCURRENCY_LIMIT_H_
