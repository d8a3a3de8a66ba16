// SPDX-License-Identifier: GPL-2.0-or-later
#include "planned_use_state.h"

#include <sys/stat.h>

#include <atomic>
#include <mutex>

#include "planned_use.h"
#include "plugin_log.h"
#include "state_file.h"
#include "slurm_api.h"

namespace fairway::plugin {

namespace {

constexpr const char* kLedgerFile = "fairway_planned_use";

std::mutex g_ledger_mutex;  // the decay thread and job-end charges
PlannedUseLedger* g_ledger = nullptr;  // raw: no static destructor at exit
bool g_loaded = false;
// When the ledger loaded at start was written: PlannedUseLedgerChargedUntil.
std::atomic<time_t> g_charged_until{0};

void NoteChargedUntil(const char* suffix) {
  struct stat st;
  if (stat(StateFilePath(kLedgerFile, suffix).c_str(), &st) == 0) g_charged_until = st.st_mtime;
}

bool TryLoad(const char* suffix, PlannedUseLedger* ledger, std::string* why) {
  std::string bytes;
  StateFileRead read = ReadStateFile(kLedgerFile, suffix, &bytes, why);
  if (read == StateFileRead::kMissing) {
    *why = "missing";
    return false;
  }
  return read == StateFileRead::kOk && ParseLedger(bytes, ledger, why);
}

PlannedUseLedger& Ledger() {
  if (!g_ledger) g_ledger = new PlannedUseLedger();
  return *g_ledger;
}

}  // namespace

time_t PlannedUseLedgerChargedUntil() { return g_charged_until.load(); }

void LoadPlannedUseLedger() {
  std::lock_guard<std::mutex> lock(g_ledger_mutex);
  if (g_loaded) return;
  g_loaded = true;
  PlannedUseLedger loaded;
  std::string why;
  if (TryLoad("", &loaded, &why)) {
    Ledger() = std::move(loaded);
    NoteChargedUntil("");
    LogInfo("planned use: ledger of %zu associations restored from %s", Ledger().entries.size(),
            StateFilePath(kLedgerFile).c_str());
    return;
  }
  if (why == "missing") {
    // Deleted while its previous copy is there: that copy is the ledger
    // (a first start has neither).
    PlannedUseLedger old;
    std::string old_why;
    if (TryLoad(".old", &old, &old_why)) {
      Ledger() = std::move(old);
      NoteChargedUntil(".old");
      LogError("planned use: state file %s is missing; ledger restored from %s (usage since "
               "its last write is lost)",
               StateFilePath(kLedgerFile).c_str(), StateFilePath(kLedgerFile, ".old").c_str());
      return;
    }
    LogInfo("planned use: no ledger (%s) to recover; starting empty",
            StateFilePath(kLedgerFile).c_str());
    return;
  }
  LogError("planned use: state file %s is damaged (%s); kept as %s, trying %s",
           StateFilePath(kLedgerFile).c_str(), why.c_str(),
           StateFilePath(kLedgerFile, ".damaged").c_str(),
           StateFilePath(kLedgerFile, ".old").c_str());
  SetAsideDamagedStateFile(kLedgerFile);
  PlannedUseLedger old;
  std::string old_why;
  if (TryLoad(".old", &old, &old_why)) {
    Ledger() = std::move(old);
    NoteChargedUntil(".old");
    LogError("planned use: ledger restored from %s (usage since its last write is lost)",
             StateFilePath(kLedgerFile, ".old").c_str());
  } else {
    LogError("planned use: no usable previous copy (%s); the ledger starts empty",
             old_why.c_str());
  }
}

void RollPlannedUseLedger(time_t now, const PluginConfig& config) {
  std::lock_guard<std::mutex> lock(g_ledger_mutex);
  const Params& p = config.params;
  Ledger().Roll(now, p.planned_use_interval_s,
                PlannedUsePerIntervalDecay(p.planned_use_interval_s, p.decay_half_life_s));
}

void SavePlannedUseLedger() {
  std::string bytes;
  {
    std::lock_guard<std::mutex> lock(g_ledger_mutex);
    bytes = SerializeLedger(Ledger());
  }
  WriteStateFile(kLedgerFile, bytes);
}

void ChargePlannedUse(const uint32_t* assoc_path_ids, int path_length, long double billing_seconds) {
  if (billing_seconds <= 0) return;
  std::lock_guard<std::mutex> lock(g_ledger_mutex);
  for (int i = 0; i < path_length; ++i) Ledger().Charge(assoc_path_ids[i], billing_seconds);
}

bool ReplacePlannedUseLedgerIfEmpty(PlannedUseLedger ledger, bool force) {
  std::lock_guard<std::mutex> lock(g_ledger_mutex);
  g_loaded = true;
  if (!force && !Ledger().entries.empty()) return false;
  Ledger() = std::move(ledger);
  return true;
}

void ComputePlannedUseFairshare(const AssocTree& tree, const PluginConfig& config,
                                FairshareResults* results) {
  double capacity = config.params.planned_use_capacity;
  if (capacity <= 0) {
    // Without TRESBillingWeights a CPU bills 1: the cluster's CPUs.
    capacity = cluster_cpus != NO_VAL ? static_cast<double>(cluster_cpus) : 0.0;
  }
  std::lock_guard<std::mutex> lock(g_ledger_mutex);
  ComputePlannedUse(tree, Ledger(), config.params, capacity, results);
}

}  // namespace fairway::plugin
