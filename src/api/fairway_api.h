/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core's C interface: the only thing the Slurm boundary
 * (plugins/priority/fairway/, written in C) calls, and the only header both
 * C and C++ include. It declares plain-data snapshots that the boundary
 * fills from Slurm's structs, the results it writes back, and the
 * functions between them.
 *
 * Contracts common to every function below:
 * - No Slurm type crosses this interface. Pointers named `key` are the
 *   boundary's own addresses of association records, compared, never
 *   read; no job, partition or QOS record's address crosses it.
 * - Nothing here takes a lock, reads a clock, does I/O or starts a thread;
 *   `now` is always passed in. The boundary takes Slurm's locks and says at
 *   each call which it holds.
 * - Objects behind the opaque handles are owned by the boundary, which
 *   creates and destroys them and serialises access as each function says.
 * - No function throws: every C++ exception is caught inside and reported
 *   through the configuration's logger (or, where there is none, by the
 *   return value).
 * - Strings returned as `char *` are allocated with malloc(); the caller
 *   frees them with free(). Slurm never frees them. */
#ifndef FAIRWAY_API_H_
#define FAIRWAY_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Slurm's sentinels, restated (the boundary checks they match). */
#define FW_NO_VAL 0xfffffffeu
#define FW_NO_CONSUME_VAL64 0xfffffffffffffffdull
#define FW_NICE_OFFSET 0x80000000u

/* ======================================================================
 * Logging. The boundary gives one function that writes a line to
 * slurmctld's log; the core formats its own messages.
 * ====================================================================== */
typedef enum {
  FW_LOG_ERROR = 0,
  FW_LOG_INFO = 1,
  FW_LOG_VERBOSE = 2,
  FW_LOG_PRIO = 3, /* only when DebugFlags=Priority: see fw_settings_t */
} fw_log_level_t;
/* line: one message without the "priority/fairway: " prefix (nor "PRIO: "
 * for FW_LOG_PRIO), which the boundary adds as for its own lines; it is
 * the core's until the call returns. */
typedef void (*fw_log_fn)(fw_log_level_t level, const char *line);

/* ======================================================================
 * Configuration: slurm.conf's priority settings and PriorityParameters.
 * ====================================================================== */
typedef enum {
  FW_MODE_CLASSIC = 0,
  FW_MODE_DEPTH_OBLIVIOUS = 1,
  FW_MODE_FAIR_TREE = 2,
  FW_MODE_RANGED = 3,
  FW_MODE_PLANNED_USE = 4,
} fw_mode_t;

typedef enum {
  FW_BOOTSTRAP_AUTO = 0,
  FW_BOOTSTRAP_FORCE = 1,
  FW_BOOTSTRAP_OFF = 2,
} fw_bootstrap_mode_t;

/* The fields of slurm_conf the plugin reads, copied as they are. */
typedef struct {
  uint32_t weight_age, weight_assoc, weight_fairshare, weight_job_size, weight_partition,
      weight_qos;
  const double *weight_tres; /* tres_cnt values (slurm_get_tres_weight_array), or NULL */
  uint32_t tres_cnt;
  const char *weight_tres_text; /* PriorityWeightTRES as written, or NULL */
  uint32_t flags;               /* PriorityFlags (PRIORITY_FLAGS_* bits) */
  uint32_t decay_half_life_s, calc_period_s, max_age_s;
  uint16_t reset_period; /* PriorityUsageResetPeriod (PRIORITY_RESET_*) */
  uint16_t favor_small;
  bool favor_small_clamps_nodes; /* the release's (23.02 and later): Params */
  uint16_t damp_factor; /* FairShareDampeningFactor; 0 is reported and 1 used */
  const char *priority_parameters; /* or NULL */
  bool with_slurmdbd;  /* false: age and fairshare weights forced to 0, as multifactor */
  bool prio_debug;     /* DebugFlags=Priority */
  const char *cluster_name; /* ClusterName (fairshare_clusters may not name it), or NULL */
} fw_config_input_t;

/* What the boundary reads of a configuration. */
typedef struct {
  fw_mode_t mode;
  uint32_t flags;       /* PRIORITY_FLAGS_* in force */
  bool calc_fairshare;  /* false without slurmdbd */
  bool fair_tree_shares; /* shares normalised per level (Fair Tree and Fairway's modes) */
  uint32_t weight_fairshare;
  uint16_t damp_factor; /* FairShareDampeningFactor in force (never 0) */
  double decay_per_second;
  int64_t decay_half_life_s, calc_period_s;
  uint16_t reset_period;
  fw_bootstrap_mode_t usage_bootstrap;
  uint32_t tres_cnt;          /* PriorityWeightTRES entries (0: unset) */
  const double *tres_weights; /* tres_cnt weights, owned by the configuration */
  bool prio_debug;
  /* PriorityParameters=fairshare_clusters: the other clusters' names
   * (lower case), owned by the configuration; fairshare_sync (0: every
   * decay pass). */
  size_t remote_cluster_cnt;
  const char *const *remote_clusters;
  int64_t fairshare_sync_s;
  /* PriorityParameters=change_check: seconds between looks for a change
   * that moves priorities (0: passes every PriorityCalcPeriod only). */
  int64_t change_check_s;
} fw_settings_t;

typedef struct fw_config fw_config_t; /* immutable once made; reference-counted */

/* Parses and validates; every problem is logged through log (error level,
 * naming the setting and its value, and what is used instead), and with
 * log_summary one info line says what is in force. Never NULL. The logger
 * is kept for every later call that takes this configuration. */
fw_config_t *fw_config_create(const fw_config_input_t *in, fw_log_fn log, bool log_summary);
/* Thread-safe (atomic count). */
fw_config_t *fw_config_ref(fw_config_t *config);
void fw_config_unref(fw_config_t *config);
const fw_settings_t *fw_settings(const fw_config_t *config);

/* ======================================================================
 * Decay and usage reset.
 * ====================================================================== */
/* The factor usage is multiplied by over elapsed_s seconds (1 when
 * elapsed_s <= 0 or there is no decay). */
double fw_decay_over(const fw_config_t *config, int64_t elapsed_s);

typedef struct {
  uint16_t period;    /* PRIORITY_RESET_* in force (NOW becomes NONE once applied) */
  int64_t last_reset; /* 0: unknown */
  int64_t next_reset; /* 0: not computed yet */
} fw_reset_state_t;
/* Whether every association's and QOS's usage must be zeroed at now;
 * updates *state (last and next reset) as if it was. */
bool fw_reset_due(fw_reset_state_t *state, int64_t now);
/* The last reset the period implies at now (0 for none). */
int64_t fw_last_reset_boundary(uint16_t period, int64_t now);

/* ======================================================================
 * Start-up recovery of the decay clock (state_recovery.h's rule).
 * ====================================================================== */
typedef enum { FW_FILE_OK = 0, FW_FILE_MISSING = 1, FW_FILE_DAMAGED = 2 } fw_file_state_t;
typedef struct {
  fw_file_state_t state;
  const char *bytes; /* state OK: the file's contents */
  size_t length;
  const char *why; /* state DAMAGED: what is wrong, or NULL */
} fw_file_t;

typedef struct {
  int64_t charge_from;  /* charge running jobs from here (0: from their start) */
  int64_t last_reset;   /* 0: unknown */
  bool rebuild_usage;   /* assoc_usage missing, empty or cut */
  bool clock_damaged;   /* priority_last_decay_ran is damaged or implausible: set it aside */
  bool error;           /* log message at error level, else info */
  char *message;        /* one line, or NULL when all is consistent; free() it */
} fw_recovery_t;

/* clock, clock_old: priority_last_decay_ran and its .old copy; usage:
 * Slurm's assoc_usage, read with protocol versions [min_version,
 * max_version]. Never fails. */
void fw_decide_recovery(const fw_file_t *clock, const fw_file_t *clock_old,
                        const fw_file_t *usage, uint16_t min_version, uint16_t max_version,
                        int64_t now, int64_t calc_period_s, uint16_t reset_period,
                        fw_recovery_t *out);
/* multifactor's priority_last_decay_ran format: 16 bytes. */
#define FW_DECAY_CLOCK_BYTES 16
void fw_serialize_decay_clock(int64_t last_ran, int64_t last_reset,
                              unsigned char out[FW_DECAY_CLOCK_BYTES]);

/* ======================================================================
 * Planned-use ledger. Not thread-safe: the boundary holds its ledger
 * mutex around every call that takes a ledger.
 * ====================================================================== */
typedef struct fw_ledger fw_ledger_t;
fw_ledger_t *fw_ledger_create(void);
void fw_ledger_destroy(fw_ledger_t *ledger);
/* Replaces the ledger by the parsed bytes; on failure returns false with
 * *why (free() it) and leaves the ledger as it was. charged_until: when the
 * file was written (its mtime): charges of earlier slices are not counted
 * again (planned_use.h PlannedUseChargeAfter). */
bool fw_ledger_parse(fw_ledger_t *ledger, const char *bytes, size_t length,
                     int64_t charged_until, char **why);
/* The ledger's bytes (malloc; *length set). */
char *fw_ledger_serialize(const fw_ledger_t *ledger, size_t *length);
size_t fw_ledger_entries(const fw_ledger_t *ledger);
/* Closes the interval boundaries up to now. */
void fw_ledger_roll(fw_ledger_t *ledger, const fw_config_t *config, int64_t now);

/* ======================================================================
 * Charging a job's usage.
 * ====================================================================== */
typedef struct {
  uint32_t job_id;
  int64_t start_period, end_period; /* last pass (or 0) and now, or the job's end */
  bool adjust_for_end;              /* the job-end charge */
  int64_t start_time, end_time, end_time_exp;
  uint32_t time_limit_min;
  bool finished_or_completing; /* also while resizing */
  double billable_tres;        /* calc_job_billable_tres from max(start_time, start_period) */
  bool has_qos;
  double qos_usage_factor;   /* applied when >= 0 */
  const uint64_t *tres_alloc; /* tres_cnt counts, or NULL */
  uint32_t tres_cnt;
  /* Planned use: the association ids from the job's up to the root. */
  const uint32_t *assoc_path;
  uint32_t assoc_path_length;
} fw_charge_input_t;

typedef struct {
  double run_delta_s, run_decay_s, run_nodecay_s; /* seconds (grp_used_wall) */
  double real_decay, real_nodecay;                /* billing-seconds (usage_raw) */
  /* Caller-provided arrays of tres_cnt entries each, or NULL. */
  uint64_t *tres_run_release;   /* run-seconds to release (GrpTRESRunMins) */
  long double *tres_usage_decay;   /* per-TRES usage to add, discounted */
  long double *tres_usage_nodecay; /* the same, undiscounted (NoDecay QOS) */
} fw_charge_t;

/* Computes a job's charge for [start_period, end_period]. In planned-use
 * mode, and when ledger is given, it also charges the ledger along
 * assoc_path (accrue: this slice's billing-seconds; start: billing x time
 * limit once, with the job's first slice), never twice what a restored
 * ledger already holds. */
void fw_charge_job(const fw_config_t *config, const fw_charge_input_t *in, fw_ledger_t *ledger,
                   fw_charge_t *out);

/* Adds usage (when usage_add is given) to usage_tres_raw and releases
 * release from run_secs, TRES by TRES except skip_index (energy). A release
 * larger than what remains floors at 0 and is reported through underflow
 * (what, id and the TRES index are the caller's, for its message). */
typedef void (*fw_underflow_fn)(void *arg, uint32_t tres_index, uint64_t release,
                                uint64_t remaining);
void fw_apply_tres_run(long double *usage_tres_raw, uint64_t *run_secs,
                       const long double *usage_add, const uint64_t *release, uint32_t tres_cnt,
                       uint32_t skip_index, fw_underflow_fn underflow, void *arg);

/* At restart acct_policy re-reserves a running job's whole time limit in
 * GrpTRESRunMins; what it used before last_ran is released again:
 * release[i] = tres_alloc[i] x (last_ran - start_time) x QOS usage factor. */
void fw_restart_release(const uint64_t *tres_alloc, uint32_t tres_cnt, int64_t start_time,
                        int64_t last_ran, bool has_qos, double qos_usage_factor,
                        uint64_t *release);

/* ======================================================================
 * Associations and fairshare.
 * ====================================================================== */
typedef struct {
  const void *key; /* the record (distinct per record, never NULL); a key met
                    * again after its first entry is ignored */
  uint32_t id;
  uint32_t parent_id; /* 0 for the root and for records not under it */
  /* The parent record's key, or NULL (then the parent is found by
   * parent_id). With it, records that share an id are still linked as
   * assoc_mgr links them, by pointer. */
  const void *parent_key;
  bool listed_only;   /* not reached from the root: an orphan unless met earlier */
  const char *acct, *user, *partition;
  uint32_t shares_raw, priority;
  long double usage_raw;
  /* Usage of removed children kept by this record (assoc_mgr's leaf_usage
   * of an account, when it is not the record's own usage); 0 otherwise.
   * Read for the root only. */
  long double removed_usage_raw;
  /* assoc_mgr's own normalisation (used when it follows the same family
   * of modes as the one in force). */
  uint32_t level_shares;
  double shares_norm, priority_norm;
} fw_assoc_input_t;

typedef struct {
  bool write_usage;    /* usage_norm and usage_efctv */
  bool write_level_fs; /* level_fs */
  bool write_fs_factor;
  /* The root only: its usage_raw is not the sum of what lies under it
   * (fw_fairshare's contract); usage_raw is that sum, which fairshare used. */
  bool write_usage_raw;
  long double usage_norm, usage_efctv, level_fs, usage_raw;
  double fs_factor;
} fw_assoc_result_t;

/* out[t] = removed[t] (0 when removed is NULL) plus children[c][t] summed
 * over c < n, for t < tres_cnt: the root's per-TRES usage when fw_fairshare
 * repaired its usage_raw (write_usage_raw). */
void fw_sum_usage_tres(const long double *const *children, size_t n, const long double *removed,
                       uint32_t tres_cnt, long double *out);

/* The records of assoc_mgr's list that a walk from the root did not reach:
 * writes their positions in listed[0..n_listed), ascending, to unreached
 * (room for n_listed) and returns their count. Compared by address; a
 * record listed twice is reported twice (fw_fairshare keeps the first). */
size_t fw_assocs_unreached(const void *const *reached, size_t n_reached,
                           const void *const *listed, size_t n_listed, size_t *unreached);

/* The one fairshare entry point, for every mode. in[0] is the root, the
 * others come in depth-first order of Slurm's children lists, then the
 * records of assoc_mgr's list the walk did not reach (fw_assocs_unreached;
 * the whole list does as well) marked listed_only. slurm_fair_tree_shares: the
 * normalisation assoc_mgr did (PriorityFlags=FAIR_TREE). ledger and
 * capacity (billing units per second; <= 0: capacity_cpus) are read in
 * planned-use mode only. Fills out[0..n) and returns true; false when the
 * records do not make a tree (out untouched; logged). An entry whose key
 * was met earlier, and an orphan, get every write_* false. Without
 * fairshare (fw_settings_t.calc_fairshare false) every write_* is false.
 * Also guarantees:
 * - Records that share an id (slurmdbd never sends them) cost nothing to
 *   the others: each is computed as an association of its own, linked by
 *   parent_key where given (as assoc_mgr links, by pointer); logged at
 *   error level once per id and configuration.
 * - Classic modes write fs_factor for every computed association but the
 *   root (multifactor's value for it); Fair Tree's modes for users.
 * - When the entries carry parent_key, no records share an id, and the
 *   root's usage_raw is more, beyond rounding, than its children's
 *   (parent_key the root's key) plus its removed_usage_raw, fairshare is
 *   computed on that sum, out[0] has write_usage_raw with it, and an error
 *   line says so. */
bool fw_fairshare(const fw_config_t *config, const fw_assoc_input_t *in, size_t n,
                  bool slurm_fair_tree_shares, const fw_ledger_t *ledger,
                  uint32_t capacity_cpus, fw_assoc_result_t *out);

/* ======================================================================
 * Remote clusters' usage (PriorityParameters=fairshare_clusters;
 * src/remote_usage.h). Not thread-safe: the boundary holds its remote
 * mutex around every call that takes one, and never holds it while it
 * waits on slurmdbd.
 * ====================================================================== */
typedef struct fw_remote fw_remote_t;
fw_remote_t *fw_remote_create(void);
void fw_remote_destroy(fw_remote_t *remote);
/* Replaces the state by the parsed bytes; on failure returns false with
 * *why (free() it) and leaves the state as it was. */
bool fw_remote_parse(fw_remote_t *remote, const char *bytes, size_t length, char **why);
/* The state's bytes (malloc; *length set). */
char *fw_remote_serialize(const fw_remote_t *remote, size_t *length);
/* The start of the jobs the next sync of cluster fetches from slurmdbd. */
int64_t fw_remote_fetch_since(const fw_remote_t *remote, const fw_config_t *config,
                              const char *cluster, int64_t now);
typedef struct {
  uint32_t id;
  const char *acct, *user, *partition, *parent_acct;
} fw_remote_assoc_t;
typedef struct {
  uint32_t job_id;
  int64_t submit;
  uint32_t assoc_id;
  int64_t start, end;     /* start 0: never ran; end 0: still running */
  const char *tres_alloc; /* slurmdbd's "id=count,..." */
} fw_remote_job_t;
typedef struct {
  size_t charged, running, repeated, without_path;
  double charged_usage; /* billing-seconds the charged jobs added */
  /* Nothing was done: call again with the cluster's associations. */
  bool needs_assocs;
} fw_remote_sync_t;
/* One sync of cluster at now with slurmdbd's answer for
 * fw_remote_fetch_since: its jobs and, when assocs is not NULL, its
 * associations (n_assocs may be 0), whose paths are then kept. With
 * assocs NULL the kept paths are used, unless none are kept, they are an
 * hour old or a job names a newer association: then nothing is done and
 * out->needs_assocs is set (RemoteUsage::NeedsAssocs). Also forgets the
 * clusters the configuration no longer names. */
void fw_remote_sync(fw_remote_t *remote, const fw_config_t *config, const char *cluster,
                    const fw_remote_assoc_t *assocs, size_t n_assocs,
                    const fw_remote_job_t *jobs, size_t n_jobs, int64_t now,
                    fw_remote_sync_t *out);
/* Makes the bytes of what the last fw_fairshare_with_remote added, which
 * fw_remote_used_serialize returns. Requires the remote-usage mutex held
 * since that call, and may take milliseconds: call it after releasing
 * slurmctld's locks. */
void fw_remote_prepare_used(fw_remote_t *remote, const fw_config_t *config);
/* What the last fw_fairshare_with_remote added, per cluster and path, for
 * StateSaveLocation/fairway_remote_used (malloc; *length set), as
 * fw_remote_prepare_used made it. */
char *fw_remote_used_serialize(const fw_remote_t *remote, size_t *length);
/* When cluster was last synced (0: never). */
int64_t fw_remote_synced_at(const fw_remote_t *remote, const char *cluster);

/* fw_fairshare on local plus remote usage: each association's usage_raw
 * gains the remote usage of its subtree (matched by path, decayed to now,
 * scaled) before the fairshare is computed; out's usage_raw (the root's
 * repair) stays local. Paths with no local association are logged once
 * each. remote NULL, or no cluster configured: exactly fw_fairshare. */
bool fw_fairshare_with_remote(const fw_config_t *config, const fw_assoc_input_t *in, size_t n,
                              bool slurm_fair_tree_shares, const fw_ledger_t *ledger,
                              uint32_t capacity_cpus, fw_remote_t *remote, int64_t now,
                              fw_assoc_result_t *out);

/* One association's usage_norm and effective usage (classic and
 * DEPTH_OBLIVIOUS) from its fairshare parent's current values: for
 * priority_p_set_assoc_usage and for a job whose association has none yet. */
typedef struct {
  long double usage_raw, root_usage_raw;
  bool has_fs_parent;
  bool parent_is_root;
  long double parent_efctv;
  uint32_t shares_raw, level_shares; /* as Slurm stores them, Fairshare=parent included */
  double shares_norm, parent_shares_norm;
  /* DEPTH_OBLIVIOUS: usage_norm of the fairshare siblings that do not use
   * their parent's, self among them at self_index. */
  const long double *sibling_usage_norm;
  size_t sibling_count, self_index;
} fw_one_assoc_input_t;
typedef struct {
  long double usage_norm, usage_efctv;
  bool has_efctv; /* false without a fairshare parent */
} fw_one_assoc_usage_t;
void fw_one_assoc_usage(const fw_config_t *config, const fw_one_assoc_input_t *in,
                        fw_one_assoc_usage_t *out);

/* 2^(-UE/S/damp), for priority_p_calc_fs_factor (sshare: no configuration). */
double fw_calc_fs_factor(long double usage_efctv, long double shares_norm, uint16_t damp);
/* Whether the classic modes read an association's effective usage and
 * normalised shares from its fairshare parent (usage->fs_assoc_ptr) rather
 * than from itself: Fairshare=parent (shares_raw is Slurm's
 * SLURMDB_FS_USE_PARENT) with the parent known (has_fs_parent). The
 * boundary copies the fields of the record this names. */
bool fw_fairshare_from_parent(uint32_t shares_raw, bool has_fs_parent);
/* Whether a fairshare sibling's usage_norm enters DEPTH_OBLIVIOUS's
 * sibling_usage_norm (fw_one_assoc_input_t): not when it is Fairshare=parent
 * (shares_raw is Slurm's SLURMDB_FS_USE_PARENT), which uses its parent's. */
bool fw_depth_oblivious_sibling(uint32_t shares_raw);

/* Usage bootstrap (state_recovery.h: assoc_usage missing, or forced). */
bool fw_bootstrap_wanted(const fw_config_t *config, bool usage_missing);
/* The start of the jobs to fetch: the configured last reset, or ten
 * half-lives before now when later; 1 for all history. */
int64_t fw_bootstrap_since(const fw_config_t *config, int64_t configured_last_reset,
                           int64_t now);
typedef struct {
  uint32_t assoc_id;
  int64_t start, end;    /* end 0: still running */
  const char *tres_alloc; /* slurmdbd's "id=count,..." */
} fw_db_job_t;
typedef enum {
  FW_BOOTSTRAP_REBUILT = 0,
  FW_BOOTSTRAP_NOT_NEEDED = 1, /* usage there and not forced, or no tree (logged) */
} fw_bootstrap_result_t;
/* Rebuilds every association's usage_raw (usage[n]) and, when tres_ids is
 * given, per-TRES usage (tres_usage[n * tres_cnt], row per association)
 * from the jobs; assocs as for fw_fairshare (a row whose key was met
 * earlier gets its first row's values, so every row may be written).
 * force (or usage_bootstrap=force): replace usage that is there. In
 * planned-use mode the ledger is rebuilt from the same jobs (kept when it
 * has entries and not forced). Logs what it rebuilt, the records it could
 * not read, and why it rebuilt nothing. Jobs that never started or have no
 * association are skipped. */
fw_bootstrap_result_t fw_bootstrap_usage(const fw_config_t *config,
                                         const fw_assoc_input_t *assocs, size_t n,
                                         const fw_db_job_t *jobs, size_t job_count,
                                         const uint32_t *tres_ids, uint32_t tres_cnt,
                                         uint32_t energy_tres_id, bool force, int64_t since,
                                         int64_t now, bool retry, fw_ledger_t *ledger,
                                         long double *usage, long double *tres_usage);

/* ======================================================================
 * Job priorities.
 *
 * A job reaches the core as one record, fw_job_input_t, filled by the
 * boundary from job_record_t and the records it points to under Slurm's
 * read locks; the core computes on that record directly. Partitions are
 * not copied per job: the boundary fills one fw_partition_input_t per
 * partition it meets, in one array given with the records, and a record
 * names its partitions by their index in that array.
 * ====================================================================== */
typedef struct {
  uint32_t cluster_cpus, node_count;
} fw_cluster_t;

typedef struct {
  uint16_t priority_job_factor, priority_tier;
  double norm_priority;
  uint32_t max_time_min;
  const uint64_t *tres_cnt; /* the configuration's tres_cnt totals, or NULL */
} fw_partition_input_t;

/* One QOS of a job submitted with several (--qos=a,b, Slurm 24.11 and
 * later). */
typedef struct {
  uint32_t priority;
  double norm_priority;
} fw_qos_input_t;

/* A record without a partition (part_ptr NULL). */
#define FW_NO_PARTITION 0xffffffffu

/* A job's scalar inputs: the numbers the core's priority terms
 * (src/priority_terms.h) read as they are, copied from job_record_t and
 * the association and QOS it points to. The core's JobInputs derives from
 * this struct, and the tool's ControllerJob holds one filled from
 * job_info_t, so every path copies it as one struct.
 *
 * A new per-job number that feeds a term goes here, and then changes
 * exactly: this struct; plugins/priority/fairway/job_gather.c (the copy
 * from job_record_t in job_inputs; fw_jobs_stamp needs nothing, as a job
 * update ends in priority_p_set); the term in src/priority_terms.h; and the
 * tool's tool/slurmctld/rpc_client.cc (the same number from job_info_t,
 * in the core's meaning). A field's default in the core (JobInputs) is
 * src/job_priority.h's DefaultJobScalars. */
typedef struct {
  int64_t accrue_time; /* 0: not accruing age */
  uint32_t total_cpus, max_cpus, min_cpus, min_nodes;
  uint32_t time_limit_min; /* FW_NO_VAL: the partition's MaxTime */
  uint32_t site_factor, nice; /* biased by FW_NICE_OFFSET */
  bool has_assoc;
  uint32_t assoc_priority;
  double assoc_priority_norm;
  /* The association's fairshare factor: its fs_factor (Fair Tree and
   * Fairway's modes) or fw_calc_fs_factor of its fairshare association
   * (classic modes); 0 without fairshare weight or fairshare. */
  double fairshare_factor;
  bool has_qos; /* the job's current QOS (qos_ptr): the job's own priority reads it */
  uint32_t qos_priority;
  double qos_norm_priority;
} fw_job_scalars_t;

typedef struct {
  uint32_t job_id;
  uint32_t priority; /* the job's current priority (INCR_ONLY's previous) */
  /* The boundary's own index of the job's record, handed back to it in
   * fw_store_item_t for its prefetches; never read. */
  uint32_t record_index;
  fw_job_scalars_t scalars; /* what the terms read as it is */
  const uint64_t *tres_alloc, *tres_req; /* tres_cnt counts each, or NULL */
  uint32_t partition; /* part_ptr's index in the partitions, or FW_NO_PARTITION */
  /* part_ptr_list's indexes in the partitions, in list order (NULL, 0
   * without a list). */
  const uint32_t *partition_list;
  uint32_t partition_count;
  /* A job with several QOS: qos_list's, in list order (slurmctld keeps it
   * sorted by QOS priority, descending); NULL, 0 otherwise. Such a job
   * gets one priority per (partition, QOS) pair, even in one partition. */
  const fw_qos_input_t *qos_list;
  uint32_t qos_count;
  /* The job's current priorities, indexed as fw_factors_t's
   * partition_priorities, or NULL (also when it holds fewer entries). */
  const uint32_t *priority_array;
} fw_job_input_t;

/* The weighted factors sprio shows, and what is stored for a job. */
typedef struct {
  double age, assoc, fairshare, job_size, partition, qos;
  uint32_t site, nice;
  /* TRES: either tres[tres_cnt], or tres_values values for the columns
   * listed in tres_columns (the others 0). */
  const double *tres;
  uint32_t tres_cnt;
  const uint32_t *tres_columns;
  uint32_t tres_values;
  /* What the scheduler indexes (priority_array). A multi-partition job:
   * one priority per partition, in the order fw_partition_order gives. A
   * job with several QOS: one per (partition, QOS) pair, partition-major
   * (the partitions in that order, or the job's partition alone), the QOS
   * in qos_list order: partition_count = partitions x qos_count. */
  const uint32_t *partition_priorities;
  uint32_t partition_count;
  uint32_t priority;
  bool clamped;
} fw_factors_t;

/* Computes one job (priority_p_set). partitions: the array job's indexes
 * refer to. tres_out: fw_settings_t.tres_cnt doubles (the caller's)
 * receiving the weighted TRES factors, or NULL; partition_out:
 * fw_priority_count(job) priorities (the caller's), or NULL. out's
 * pointers point at those arrays (NULL, with a count of 0, when not
 * given). out->priority is the computed one (INCR_ONLY is the pass's). */
void fw_job_priority(const fw_config_t *config, const fw_job_input_t *job,
                     const fw_partition_input_t *partitions, const fw_cluster_t *cluster,
                     int64_t now, fw_factors_t *out, double *tres_out, uint32_t *partition_out);
/* How many priorities the scheduler indexes for job: its partitions (1
 * when it has no list) times its QOS for a job with several QOS, its
 * partitions otherwise (0 for a job in one partition with one QOS). */
uint32_t fw_priority_count(const fw_job_input_t *job);
/* The same rule from the counts alone, for the boundary's store, which
 * sizes a job's priority_array from the record it holds under the job
 * write lock: partitions = the entries of part_ptr_list (0 without a
 * list), qos_count = the entries of a job's several QOS (0 for one).
 * fw_priority_count(job) is this of job's partition_count (0 without
 * partition_list) and qos_count (0 without qos_list). */
uint32_t fw_priority_array_count(uint32_t partitions, uint32_t qos_count);
/* order[i] = the list position of the i-th partition a multi-partition
 * job's priorities are computed and indexed in: tier descending, stable. */
void fw_partition_order(const fw_job_input_t *job, const fw_partition_input_t *partitions,
                        uint32_t *order);
/* sprio's row for one partition of a multi-partition job: its weighted
 * partition factor, and its TRES factors into row_tres[tres_cnt]. Reads
 * the job's TRES counts only. */
double fw_sprio_partition_row(const fw_config_t *config, const fw_job_input_t *job,
                              const fw_partition_input_t *partition, double *row_tres,
                              uint32_t tres_cnt);
/* sprio's row for one QOS of a job with several: the weighted QOS factor
 * (the QOS's own, or job_weighted_qos, the job's, when the QOS has no
 * priority or the QOS weight is 0). */
double fw_sprio_qos_row(const fw_config_t *config, const fw_qos_input_t *qos,
                        double job_weighted_qos);

/* ======================================================================
 * The decay pass's job table. One fw_pass_t lives as long as the plugin.
 * Only the decay thread (or init without one) calls the functions that
 * change it, in the order of the pass; fw_pass_factors is called by sprio
 * under the job READ lock, fw_pass_forget under the job WRITE lock. The
 * gather (fw_pass_begin, fw_pass_add, fw_pass_end_gather) writes the table
 * sprio reads, both under the job READ lock: the caller excludes the one
 * from the other with a lock of its own (the boundary's table lock).
 * ====================================================================== */
typedef struct fw_pass fw_pass_t;
fw_pass_t *fw_pass_create(void);
void fw_pass_destroy(fw_pass_t *pass);

/* Finding job_list's records (job_roster.h), under the job READ lock. The
 * boundary keeps the records, in list order, and does the lookups; the
 * core keeps their ids and says whether what was found is the whole list:
 *   if (fw_pass_roster(pass, &ids, &known, &next_id)) {
 *     look ids[0..known) up: drop the absent, walk if one names another
 *     record than the last pass's at that place; then ids from next_id
 *     up, stopping at expected records, at an id more than
 *     FW_ROSTER_MAX_ID_GAP above the last found (or next_id - 1), or at
 *     MaxJobId; walk if a job array's record is found;
 *     found = fw_pass_refound(pass, found ids, count, first new, expected,
 *                             MaxJobId);
 *   }
 *   if not found: walk, fw_pass_assign_walked(pass, ids, count).
 * Only the decay thread (or init without one) calls them. */
#define FW_ROSTER_MAX_ID_GAP 4096u
/* False: the caller walks. */
bool fw_pass_roster(const fw_pass_t *pass, const uint32_t **ids, size_t *count,
                    uint32_t *next_id);
/* True: ids are the list's (the roster's from now on); false: the caller
 * walks. */
bool fw_pass_refound(fw_pass_t *pass, const uint32_t *ids, size_t count, size_t first_new,
                     size_t expected, uint32_t id_limit);
void fw_pass_assign_walked(fw_pass_t *pass, const uint32_t *ids, size_t count);
/* The ids found, in list order; valid until the next refound or assign. */
size_t fw_pass_jobs(const fw_pass_t *pass, const uint32_t **ids);

/* Gathering and computing, under the job READ lock and the assoc and QOS
 * READ locks: begin, one fw_pass_add per eligible job (with details and
 * no operator-set priority), end; none of them while fw_pass_factors runs
 * or its results are read (the boundary's table lock, which the gather may
 * release between two calls). A job whose priority does not change gets
 * its new factors in the table at once; the others at the store. */
void fw_pass_begin(fw_pass_t *pass, const fw_config_t *config, const fw_cluster_t *cluster,
                   int64_t now);
/* Computes job into the table. partitions: the array job's indexes refer
 * to, read during the call only (the boundary may grow it between
 * calls). Returns, for a job the store will write (its priority or array
 * changed), where the boundary writes its stamp: its own 64-bit number
 * for the fields that must not change between the gather under the read
 * locks and the store under the write lock, carried to fw_store_item_t
 * and never read (valid until the next call on pass); NULL for a job the
 * store will not visit, which needs no stamp. */
uint64_t *fw_pass_add(fw_pass_t *pass, const fw_job_input_t *job,
                      const fw_partition_input_t *partitions);
void fw_pass_end_gather(fw_pass_t *pass);

/* Storing, under the job WRITE lock, a slice at a time:
 *   bool stored = false;
 *   while (fw_pass_store_next(pass, stored, &item)) {
 *     unless item.set_since_gather, find the job; stored = whether it
 *     is still the job of the gather (its stamp) and item's factors
 *     were stored; when it changed, fw_pass_store_recompute (then
 *     stored = false) ...
 *   }
 *   finished = fw_pass_store_end_slice(pass);
 * until finished. */
typedef struct {
  uint32_t job_id;
  uint64_t stamp; /* as the boundary wrote it at fw_pass_add */
  /* The result to store (pointers valid until the slice ends): priority
   * with INCR_ONLY applied over the gathered one; no TRES (sprio reads
   * them from the table). */
  fw_factors_t factors;
  /* record_index of the job 8 items on in the slice, and the id of the
   * job 4 items on, for the boundary's prefetches (UINT32_MAX, 0: none). */
  uint32_t ahead_record_index, ahead_job_id;
  /* priority_p_set stored the job's priority and factors after the
   * gather (fw_pass_forget): they are newer than the pass's, and the
   * boundary leaves them (not stored). */
  bool set_since_gather;
} fw_store_item_t;
/* The next changed job of this slice; false at the slice's end. Retires
 * the item the last call of this slice returned: previous_stored, its
 * factors were stored; false when the job was gone, ineligible, or
 * recomputed (its own newer factors win). Ignored on a slice's first
 * call. */
bool fw_pass_store_next(fw_pass_t *pass, bool previous_stored, fw_store_item_t *item);
/* The job of the item the last fw_pass_store_next returned changed since
 * the gather: computes job (refilled by the boundary under the job write
 * lock) as fw_job_priority does at the pass's now, with out->priority
 * after INCR_ONLY over job->priority and no TRES, and notes in the table
 * that the job's own factors are newer. partition_out as fw_job_priority's. */
void fw_pass_store_recompute(fw_pass_t *pass, const fw_job_input_t *job,
                             const fw_partition_input_t *partitions, const fw_cluster_t *cluster,
                             fw_factors_t *out, uint32_t *partition_out);
/* True when every changed job is stored (and its factors are in the
 * table for sprio). The pass's statistics, for its log line:
 * fw_pass_stats. */
bool fw_pass_store_end_slice(fw_pass_t *pass);
/* Between passes (after the store finished, before the next begin), on
 * the thread that runs them: gives back the changed-jobs lists when the
 * last pass left them larger than a steady pass needs. It unmaps memory,
 * so the boundary calls it with no lock held; the lists are the pass's
 * own (sprio and priority_p_set never read them). Without it the lists
 * keep their largest size. */
void fw_pass_trim(fw_pass_t *pass);

typedef struct {
  size_t computed;   /* jobs computed by the last gather */
  size_t stored;     /* of them, changed: handed to the store */
  size_t recomputed; /* retired not stored: gone, ineligible or
                      * recomputed since the gather */
} fw_pass_stats_t;
void fw_pass_stats(const fw_pass_t *pass, fw_pass_stats_t *stats);

/* sprio: the factors the last pass computed for job_id, unless newer ones
 * were stored since; false otherwise (the caller reads job->prio_factors).
 * Factors agree with job->priority: those of a job whose priority the
 * pass changes are the new ones once the store wrote its priority.
 * Requires the job READ lock and no gather under way (the boundary's table
 * lock); *out's pointers live until either is released. */
bool fw_pass_factors(const fw_pass_t *pass, uint32_t job_id, fw_factors_t *out);
/* priority_p_set stored new factors for job_id: the pass's are no longer
 * the job's. Requires the job WRITE lock. */
void fw_pass_forget(fw_pass_t *pass, uint32_t job_id);

#ifdef __cplusplus
}
#endif

#endif /* FAIRWAY_API_H_ */
