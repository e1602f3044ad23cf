// The rendezvous store (tcp_store.hpp): a listening thread, one thread per connection, keys in a
// map under one lock. A request is op (1 byte), key, value (each a 4-byte length and bytes) and
// an 8-byte argument; a reply is status (1 byte), value and an 8-byte number.
#include "tcp_store.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

namespace infiniccl::store {

namespace {

enum Op : uint8_t { kSet = 1, kGet = 2, kAdd = 3, kHello = 4, kBye = 5, kGone = 6 };
enum Status : uint8_t { kOk = 0, kTimedOut = 1, kBadRequest = 2 };

constexpr uint32_t kMaxField = 1u << 20;

int msLeft(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : left > 2000000000 ? 2000000000 : static_cast<int>(left);
}

// Reads or writes exactly n bytes, waiting at most until the deadline.
bool io(int fd, void *buf, size_t n, bool writing, Clock::time_point deadline, std::string *error) {
    char *p = static_cast<char *>(buf);
    while (n > 0) {
        pollfd pfd{fd, static_cast<short>(writing ? POLLOUT : POLLIN), 0};
        const int r = poll(&pfd, 1, msLeft(deadline));
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) {
            *error = "no answer before the deadline";
            return false;
        }
        const ssize_t k = writing ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) {
            *error = k == 0 ? "the connection was closed" : std::strerror(errno);
            return false;
        }
        p += k;
        n -= static_cast<size_t>(k);
    }
    return true;
}

bool writeField(int fd, const std::string &s, Clock::time_point deadline, std::string *error) {
    const uint32_t n = static_cast<uint32_t>(s.size());
    return io(fd, const_cast<uint32_t *>(&n), 4, true, deadline, error) &&
           io(fd, const_cast<char *>(s.data()), s.size(), true, deadline, error);
}

bool readField(int fd, std::string *s, Clock::time_point deadline, std::string *error) {
    uint32_t n = 0;
    if (!io(fd, &n, 4, false, deadline, error)) return false;
    if (n > kMaxField) {
        *error = "a field of " + std::to_string(n) + " bytes";
        return false;
    }
    s->resize(n);
    return io(fd, s->data(), n, false, deadline, error);
}

// The server's state, shared by its threads; never freed (the server lives as long as the process).
struct State {
    std::mutex lock;
    std::condition_variable changed;
    std::map<std::string, std::string> values;
    std::map<std::string, int64_t> counters;
    std::map<std::string, std::vector<int>> gone; // per scope, in the order they went
};

class ServerImpl final : public Server {
public:
    explicit ServerImpl(int fd) {
        State *state = new State;
        std::thread([fd, state] { acceptLoop(fd, state); }).detach();
    }

private:
    static void acceptLoop(int listener, State *state) {
        for (;;) {
            const int fd = accept(listener, nullptr, nullptr);
            if (fd < 0) {
                if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE) {
                    if (errno == EMFILE || errno == ENFILE) std::this_thread::sleep_for(std::chrono::milliseconds(50));
                    continue;
                }
                return;
            }
            const int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            std::thread([fd, state] { serveConnection(fd, state); }).detach();
        }
    }

    static void serveConnection(int fd, State *state) {
        std::string scope;
        int rank = -1;
        bool said_bye = false;
        const auto forever = Clock::now() + std::chrono::hours(24 * 365);
        for (;;) {
            uint8_t op = 0;
            std::string key, value, error;
            int64_t arg = 0;
            if (!io(fd, &op, 1, false, forever, &error) || !readField(fd, &key, forever, &error) ||
                !readField(fd, &value, forever, &error) || !io(fd, &arg, 8, false, forever, &error)) {
                break;
            }
            uint8_t status = kOk;
            std::string reply;
            int64_t number = 0;
            {
                std::unique_lock<std::mutex> lock(state->lock);
                switch (op) {
                case kSet:
                    state->values[key] = value;
                    state->changed.notify_all();
                    break;
                case kGet: {
                    const auto deadline = Clock::now() + std::chrono::milliseconds(arg);
                    if (!state->changed.wait_until(lock, deadline, [&] { return state->values.count(key) != 0; })) {
                        status = kTimedOut;
                    } else {
                        reply = state->values[key];
                    }
                    break;
                }
                case kAdd:
                    number = state->counters[key] += arg;
                    state->changed.notify_all();
                    break;
                case kHello:
                    scope = key;
                    rank = static_cast<int>(arg);
                    break;
                case kBye:
                    said_bye = true;
                    break;
                case kGone: {
                    const auto deadline = Clock::now() + std::chrono::milliseconds(arg);
                    state->changed.wait_until(lock, deadline, [&] { return !state->gone[key].empty(); });
                    for (int r : state->gone[key]) reply += std::to_string(r) + ",";
                    break;
                }
                default:
                    status = kBadRequest;
                }
            }
            const auto reply_deadline = Clock::now() + std::chrono::seconds(30);
            if (!io(fd, &status, 1, true, reply_deadline, &error) || !writeField(fd, reply, reply_deadline, &error) ||
                !io(fd, &number, 8, true, reply_deadline, &error)) {
                break;
            }
        }
        close(fd);
        if (rank >= 0 && !said_bye) {
            std::lock_guard<std::mutex> lock(state->lock);
            state->gone[scope].push_back(rank);
            state->changed.notify_all();
        }
    }
};

std::mutex &g_servers_lock = *new std::mutex;
std::map<int, std::shared_ptr<Server>> &g_servers = *new std::map<int, std::shared_ptr<Server>>;

} // namespace

std::shared_ptr<Server> Server::serve(int port, std::string *error) {
    std::lock_guard<std::mutex> guard(g_servers_lock);
    auto found = g_servers.find(port);
    if (found != g_servers.end()) return found->second;
    const int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool v6 = fd >= 0;
    const int lfd = v6 ? fd : socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0) {
        *error = std::string("socket: ") + std::strerror(errno);
        return nullptr;
    }
    const int one = 1, zero = 0;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc = 0;
    if (v6) {
        setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero); // IPv4 too
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        a.sin6_addr = in6addr_any;
        a.sin6_port = htons(static_cast<uint16_t>(port));
        rc = bind(lfd, reinterpret_cast<sockaddr *>(&a), sizeof a);
    } else {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        a.sin_port = htons(static_cast<uint16_t>(port));
        rc = bind(lfd, reinterpret_cast<sockaddr *>(&a), sizeof a);
    }
    if (rc != 0 || listen(lfd, 256) != 0) {
        const int e = errno;
        close(lfd);
        *error = e == EADDRINUSE ? "the port is in use (bind: " + std::string(std::strerror(e)) + ")"
                                 : std::string("bind/listen: ") + std::strerror(e);
        return nullptr;
    }
    auto server = std::make_shared<ServerImpl>(lfd);
    g_servers[port] = server;
    return server;
}

std::unique_ptr<Client> Client::connect(const std::string &host, int port, Clock::time_point deadline,
                                        std::string *error) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    const std::string service = std::to_string(port);
    const int gai = getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
    if (gai != 0) {
        *error = "the address " + host + " does not resolve (" + gai_strerror(gai) + ")";
        return nullptr;
    }
    std::string last = "no address";
    for (;;) {
        for (addrinfo *a = found; a != nullptr; a = a->ai_next) {
            const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
            if (fd < 0) {
                last = std::string("socket: ") + std::strerror(errno);
                continue;
            }
            int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
            if (rc != 0 && errno == EINPROGRESS) {
                pollfd pfd{fd, POLLOUT, 0};
                // One attempt waits at most a second, so that a peer not yet listening is retried.
                const int wait = std::min(msLeft(deadline), 1000);
                rc = poll(&pfd, 1, wait) == 1 ? 0 : -1;
                int so_error = rc == 0 ? 0 : ETIMEDOUT;
                socklen_t len = sizeof so_error;
                if (rc == 0) getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
                rc = so_error == 0 ? 0 : -1;
                errno = so_error;
            }
            if (rc == 0) {
                freeaddrinfo(found);
                const int one = 1;
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                return std::unique_ptr<Client>(new Client(fd));
            }
            last = std::strerror(errno);
            close(fd);
        }
        if (Clock::now() >= deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(100, msLeft(deadline))));
    }
    freeaddrinfo(found);
    *error = "connect: " + last;
    return nullptr;
}

Client::~Client() { close(fd_); }

bool Client::call(uint8_t op, const std::string &key, const std::string &value, int64_t arg,
                  Clock::time_point deadline, uint8_t *status, std::string *reply, int64_t *number,
                  std::string *error) {
    std::string e;
    if (!io(fd_, &op, 1, true, deadline, &e) || !writeField(fd_, key, deadline, &e) ||
        !writeField(fd_, value, deadline, &e) || !io(fd_, &arg, 8, true, deadline, &e) ||
        !io(fd_, status, 1, false, deadline, &e) || !readField(fd_, reply, deadline, &e) ||
        !io(fd_, number, 8, false, deadline, &e)) {
        *error = "the rendezvous store: " + e;
        return false;
    }
    if (*status == kBadRequest) {
        *error = "the rendezvous store did not understand a request";
        return false;
    }
    return true;
}

namespace {
// The server answers a wait when it ends; the client allows it this much longer.
constexpr auto kSlack = std::chrono::seconds(5);
} // namespace

bool Client::set(const std::string &key, const std::string &value, std::string *error) {
    uint8_t status = 0;
    std::string reply;
    int64_t number = 0;
    return call(kSet, key, value, 0, Clock::now() + kSlack, &status, &reply, &number, error);
}

bool Client::get(const std::string &key, Clock::time_point deadline, std::string *value, std::string *error,
                 bool *timed_out) {
    uint8_t status = 0;
    int64_t number = 0;
    if (timed_out != nullptr) *timed_out = false;
    if (!call(kGet, key, "", msLeft(deadline), deadline + kSlack, &status, value, &number, error)) return false;
    if (status == kTimedOut) {
        if (timed_out != nullptr) *timed_out = true;
        *error = "the key " + key + " did not come";
        return false;
    }
    return true;
}

bool Client::add(const std::string &key, int64_t delta, int64_t *value, std::string *error) {
    uint8_t status = 0;
    std::string reply;
    return call(kAdd, key, "", delta, Clock::now() + kSlack, &status, &reply, value, error);
}

bool Client::hello(const std::string &scope, int rank, std::string *error) {
    uint8_t status = 0;
    std::string reply;
    int64_t number = 0;
    return call(kHello, scope, "", rank, Clock::now() + kSlack, &status, &reply, &number, error);
}

bool Client::bye(std::string *error) {
    uint8_t status = 0;
    std::string reply;
    int64_t number = 0;
    return call(kBye, "", "", 0, Clock::now() + kSlack, &status, &reply, &number, error);
}

bool Client::gone(const std::string &scope, Clock::time_point deadline, std::vector<int> *ranks,
                  std::string *error) {
    uint8_t status = 0;
    std::string reply;
    int64_t number = 0;
    if (!call(kGone, scope, "", msLeft(deadline), deadline + kSlack, &status, &reply, &number, error)) return false;
    ranks->clear();
    for (size_t at = 0; at < reply.size();) {
        const size_t comma = reply.find(',', at);
        ranks->push_back(std::atoi(reply.substr(at, comma - at).c_str()));
        at = comma == std::string::npos ? reply.size() : comma + 1;
    }
    return true;
}

std::string Client::localAddress() const {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    if (getsockname(fd_, reinterpret_cast<sockaddr *>(&a), &len) != 0) return "";
    char text[INET6_ADDRSTRLEN] = "";
    if (a.ss_family == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in *>(&a)->sin_addr, text, sizeof text);
    } else {
        const auto *a6 = reinterpret_cast<sockaddr_in6 *>(&a);
        if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
            inet_ntop(AF_INET, &a6->sin6_addr.s6_addr[12], text, sizeof text);
        } else {
            inet_ntop(AF_INET6, &a6->sin6_addr, text, sizeof text);
        }
    }
    return text;
}

double timeoutSeconds() {
    const char *v = std::getenv("INFINICCL_TIMEOUT_S");
    const double s = v != nullptr ? std::atof(v) : 0.0;
    return s > 0.0 ? s : 120.0;
}

} // namespace infiniccl::store
