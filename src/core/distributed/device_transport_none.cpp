// The device transport's backend in a build without NCCL: there is none, so
// device_transport() stages device data through host memory and says why.

#include <stdexcept>

#include "core/distributed/device_transport.hpp"

namespace strata::detail {

bool nccl_compiled() noexcept { return false; }

std::vector<unsigned char> device_identity(const Executor& /*exec*/) { return {}; }

// device_transport() never gets this far without NCCL: reaching these is a
// bug in Strata, not a user error.
std::vector<unsigned char> nccl_unique_id() {
  throw std::logic_error("nccl_unique_id in a build without NCCL");
}

std::shared_ptr<DeviceTransport> make_nccl_transport(const Communicator& /*comm*/,
                                                     const Executor& /*exec*/,
                                                     const std::vector<unsigned char>& /*id*/) {
  throw std::logic_error("make_nccl_transport in a build without NCCL");
}

std::unique_ptr<DeviceExchange> make_device_exchange(std::shared_ptr<DeviceTransport> /*transport*/,
                                                     const Executor& /*exec*/) {
  throw std::logic_error("make_device_exchange in a build without NCCL");
}

}  // namespace strata::detail
