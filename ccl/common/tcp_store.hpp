// tcp_store.hpp - the small key-value store over TCP that ranks meet through (rendezvous only: no
// collective data goes through it), as PyTorch's TCPStore: rank 0 serves it at
// MASTER_ADDR:MASTER_PORT, every rank (rank 0 too) is a client. Linked into libinfiniccl (the
// rendezvous of infinicclCommInitFromEnv) and into the cpu plugin (Gloo's rendezvous and the
// question "which rank is gone" after a failed collective).
//
// Besides keys, the server knows which rank each connection speaks for (hello): a connection that
// closes without bye marks its rank gone, in the order they went, so that after a failure every
// survivor can name the rank that died first. Every wait is bounded by the caller's deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace infiniccl::store {

using Clock = std::chrono::steady_clock;

class Server {
public:
    // Serves on `port` of every local address for the life of the process (never stopped: a comm
    // made later on the same port finds it, with its keys under another prefix). Where one is
    // served already by this process, that one. NULL and *error on failure (the port in use...).
    static std::shared_ptr<Server> serve(int port, std::string *error);
    virtual ~Server() = default;
};

class Client {
public:
    // Connects to host:port, retrying refused and unreachable attempts until `deadline`.
    static std::unique_ptr<Client> connect(const std::string &host, int port, Clock::time_point deadline,
                                           std::string *error);
    ~Client();
    Client(const Client &) = delete;
    Client &operator=(const Client &) = delete;

    bool set(const std::string &key, const std::string &value, std::string *error);
    // Waits for `key` until `deadline`; false with *timed_out (if not NULL) set when it never came.
    bool get(const std::string &key, Clock::time_point deadline, std::string *value, std::string *error,
             bool *timed_out = nullptr);
    // Adds `delta` to the counter `key` (0 at first): the new value.
    bool add(const std::string &key, int64_t delta, int64_t *value, std::string *error);
    // This connection speaks for `rank` of the ranks under `scope`: if it closes without bye(),
    // the rank is gone.
    bool hello(const std::string &scope, int rank, std::string *error);
    bool bye(std::string *error);
    // The ranks of `scope` gone so far, first gone first, waiting until `deadline` for one to go.
    bool gone(const std::string &scope, Clock::time_point deadline, std::vector<int> *ranks, std::string *error);
    // The local address of this connection: the address this host reaches the store from.
    std::string localAddress() const;

private:
    explicit Client(int fd) : fd_(fd) {}
    bool call(uint8_t op, const std::string &key, const std::string &value, int64_t arg, Clock::time_point deadline,
              uint8_t *status, std::string *reply, int64_t *number, std::string *error);
    int fd_;
};

// Seconds every rendezvous wait and every Gloo operation may take: INFINICCL_TIMEOUT_S, default 120.
double timeoutSeconds();

} // namespace infiniccl::store
