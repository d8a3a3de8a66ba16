// SPDX-License-Identifier: GPL-2.0-or-later
// `fairway metrics --listen`: a minimal HTTP/1.0 server for Prometheus'
// scrapes. One connection at a time (a scrape every 15-60 s needs no
// more); each GET /metrics calls produce() and answers with its text as
// application/openmetrics-text; any other path is 404, any other method
// 405. No thread of its own.
#ifndef FAIRWAY_TOOL_METRICS_SERVER_H_
#define FAIRWAY_TOOL_METRICS_SERVER_H_

#include <atomic>
#include <functional>
#include <string>

namespace fairway {

// What produce() returns: the body, or ok = false and an error text for a
// 503 (the controller unreachable, say).
struct MetricsBody {
  bool ok = true;
  std::string text;
};

// Binds ADDR:PORT ("127.0.0.1:9817", ":9817" for every address; port 0
// picks one). Returns the bound socket, or -1 with *error.
int ListenOn(const std::string& address, std::string* error);
// The port a socket from ListenOn is bound to.
int BoundPort(int socket_fd);
// Serves on socket_fd until *stop is set (checked at least once a second);
// closes it. Returns 0, or 3 on an accept error.
int ServeMetrics(int socket_fd, const std::function<MetricsBody()>& produce,
                 const std::atomic<bool>* stop);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_METRICS_SERVER_H_
