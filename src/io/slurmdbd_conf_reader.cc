// SPDX-License-Identifier: GPL-2.0-or-later
#include "slurmdbd_conf_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "../text_util.h"

namespace fairway::usage {

namespace {

std::string Octal(unsigned mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

}  // namespace

bool ParseSlurmdbdConf(std::istream& in, const std::string& source, SlurmdbdConf* conf,
                       std::string* error) {
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    std::string text = StripConfComment(raw);
    if (text.empty()) continue;
    size_t eq = text.find('=');
    if (eq == std::string::npos) continue;  // slurmdbd ignores such lines too
    const std::string key = ToLower(Trim(text.substr(0, eq)));
    const std::string value = Trim(text.substr(eq + 1));
    if (key == "storagehost") {
      conf->host = value;
    } else if (key == "storageport") {
      std::optional<int64_t> port = ParseUnsigned(value);
      if (!port || *port < 1 || *port > 65535) {
        *error = source + ":" + std::to_string(line) + ": StoragePort '" + value +
                 "' is not a port number (1..65535)";
        return false;
      }
      conf->port = static_cast<uint32_t>(*port);
    } else if (key == "storageuser") {
      conf->user = value;
    } else if (key == "storagepass") {
      conf->pass = value;
    } else if (key == "storageloc") {
      conf->loc = value;
    }
  }
  if (conf->host.empty()) conf->host = "localhost";
  if (conf->loc.empty()) conf->loc = "slurm_acct_db";
  return true;
}

bool ReadSlurmdbdConf(const std::string& path, SlurmdbdConf* conf, std::string* error) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    *error = path + ": " + std::strerror(errno) + " (give the file with --slurmdbd-conf)";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *error = path + ": not a regular file";
    return false;
  }
  if ((st.st_mode & 077) != 0) {
    *error = path + " has mode " + Octal(st.st_mode) +
             ": it holds the database password and must be readable by its owner only "
             "(chmod 600, as slurmdbd requires); refusing to use it";
    return false;
  }
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot open for reading: " + std::strerror(errno);
    return false;
  }
  *conf = SlurmdbdConf();
  conf->path = path;
  return ParseSlurmdbdConf(in, path, conf, error);
}

std::string DefaultSlurmdbdConfPath(const char* slurm_conf_env) {
  if (slurm_conf_env && *slurm_conf_env) {
    std::string s = slurm_conf_env;
    size_t slash = s.rfind('/');
    return (slash == std::string::npos ? std::string(".") : s.substr(0, slash)) + "/slurmdbd.conf";
  }
  return "/etc/slurm/slurmdbd.conf";
}

}  // namespace fairway::usage
