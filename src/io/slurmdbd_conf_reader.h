// SPDX-License-Identifier: GPL-2.0-or-later
// Reads what `fairway usage` needs of slurmdbd.conf (the database's
// address and credentials), refusing a file that others can read, as
// slurmdbd does.
#ifndef FAIRWAY_IO_SLURMDBD_CONF_READER_H_
#define FAIRWAY_IO_SLURMDBD_CONF_READER_H_

#include <cstdint>
#include <istream>
#include <string>

namespace fairway::usage {

// What `fairway usage` needs of slurmdbd.conf.
struct SlurmdbdConf {
  std::string path;
  std::string host = "localhost";  // StorageHost
  uint32_t port = 3306;             // StoragePort
  std::string user;                 // StorageUser
  std::string pass;                 // StoragePass
  std::string loc = "slurm_acct_db";  // StorageLoc
};

// "Key=Value" lines, '#' comments, keys case-insensitive; unknown keys
// ignored. False with "<source>:<line>: ..." for a bad StoragePort.
bool ParseSlurmdbdConf(std::istream& in, const std::string& source, SlurmdbdConf* conf,
                       std::string* error);
// Opens, checks the mode like slurmdbd does ((mode & 077) != 0 is refused:
// the file holds the database password) and parses.
bool ReadSlurmdbdConf(const std::string& path, SlurmdbdConf* conf, std::string* error);
// slurmdbd.conf in the directory of $SLURM_CONF (slurm_conf_env may be
// null or empty), else /etc/slurm/slurmdbd.conf.
std::string DefaultSlurmdbdConfPath(const char* slurm_conf_env);

}  // namespace fairway::usage

#endif  // FAIRWAY_IO_SLURMDBD_CONF_READER_H_
