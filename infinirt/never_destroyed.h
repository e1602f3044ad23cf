// An object with static storage made on first use and never destroyed (calls may come during
// exit), whose making allocates nothing: the loader's registries are made this way so that a
// first use while host memory is exhausted cannot throw (their own later growth is guarded).
#pragma once

#include <new>
#include <utility>

namespace infinirt {

template <typename T> class NeverDestroyed {
public:
    template <typename... Args> explicit NeverDestroyed(Args &&...args) {
        ::new (static_cast<void *>(storage_)) T(std::forward<Args>(args)...);
    }
    NeverDestroyed(const NeverDestroyed &) = delete;
    NeverDestroyed &operator=(const NeverDestroyed &) = delete;
    T &get() noexcept { return *std::launder(reinterpret_cast<T *>(storage_)); }

private:
    alignas(T) unsigned char storage_[sizeof(T)];
};

} // namespace infinirt
