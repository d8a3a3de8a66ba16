// SPDX-License-Identifier: GPL-2.0-or-later
// The scrape server of `fairway metrics --listen` (metrics_server.h).
#include "metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace fairway {

namespace {

void SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;  // the scraper went away
    sent += static_cast<size_t>(n);
  }
}

std::string Response(int code, const char* reason, const std::string& type,
                     const std::string& body) {
  return "HTTP/1.0 " + std::to_string(code) + " " + reason + "\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

// Reads the request head (up to the blank line, 8 KiB at most, 5 s).
std::string ReadHead(int fd) {
  std::string head;
  char buf[1024];
  while (head.find("\r\n\r\n") == std::string::npos && head.find("\n\n") == std::string::npos &&
         head.size() < 8192) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) break;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    head.append(buf, static_cast<size_t>(n));
  }
  return head;
}

void Answer(int fd, const std::function<MetricsBody()>& produce) {
  const std::string head = ReadHead(fd);
  const size_t sp1 = head.find(' ');
  const size_t sp2 = sp1 == std::string::npos ? sp1 : head.find(' ', sp1 + 1);
  if (sp2 == std::string::npos) {
    SendAll(fd, Response(400, "Bad Request", "text/plain", "bad request\n"));
    return;
  }
  const std::string method = head.substr(0, sp1);
  std::string path = head.substr(sp1 + 1, sp2 - sp1 - 1);
  path = path.substr(0, path.find('?'));
  if (path != "/metrics") {
    SendAll(fd, Response(404, "Not Found", "text/plain", "try /metrics\n"));
  } else if (method != "GET") {
    SendAll(fd, Response(405, "Method Not Allowed", "text/plain", "GET only\n"));
  } else {
    MetricsBody body = produce();
    if (body.ok) {
      SendAll(fd, Response(200, "OK",
                           "application/openmetrics-text; version=1.0.0; charset=utf-8",
                           body.text));
    } else {
      SendAll(fd, Response(503, "Service Unavailable", "text/plain", body.text + "\n"));
    }
  }
}

}  // namespace

int ListenOn(const std::string& address, std::string* error) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    *error = "--listen " + address + ": expected ADDR:PORT or :PORT";
    return -1;
  }
  const std::string host = address.substr(0, colon);
  char* end = nullptr;
  const long port = std::strtol(address.c_str() + colon + 1, &end, 10);
  if (end == address.c_str() + colon + 1 || *end || port < 0 || port > 65535) {
    *error = "--listen " + address + ": the port is not a number from 0 to 65535";
    return -1;
  }
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  if (host.empty()) {
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
  } else if (::inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) {
    *error = "--listen " + address + ": " + host + " is not an IPv4 address";
    return -1;
  }
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  if (fd < 0 || ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, 16) != 0) {
    *error = "--listen " + address + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

int BoundPort(int socket_fd) {
  sockaddr_in sa{};
  socklen_t len = sizeof sa;
  if (::getsockname(socket_fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) return -1;
  return ntohs(sa.sin_port);
}

int ServeMetrics(int socket_fd, const std::function<MetricsBody()>& produce,
                 const std::atomic<bool>* stop) {
  int rc = 0;
  while (!stop || !stop->load()) {
    pollfd p{socket_fd, POLLIN, 0};
    int ready = ::poll(&p, 1, 1000);
    if (ready < 0 && errno != EINTR) {
      rc = 3;
      break;
    }
    if (ready <= 0) continue;
    int client = ::accept4(socket_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      rc = 3;
      break;
    }
    Answer(client, produce);
    ::close(client);
  }
  ::close(socket_fd);
  return rc;
}

}  // namespace fairway
