// SPDX-License-Identifier: GPL-2.0-or-later
#include "factors_list.h"

#include <algorithm>
#include <vector>

#include "job_bridge.h"
#include "plugin_config.h"
#include "prefetch.h"
#include "priority_pass.h"

namespace fairway::plugin {

namespace {

bool ListHasId(List list, uint32_t id) {
  bool found = false;
  ListIterator it = list_iterator_create(list);
  while (auto* value = static_cast<uint32_t*>(list_next(it))) {
    if (*value == id) {
      found = true;
      break;
    }
  }
  list_iterator_destroy(it);
  return found;
}

bool PartitionWanted(const std::vector<part_record_t*>* filter, const part_record_t* part) {
  if (!filter) return true;
  return std::find(filter->begin(), filter->end(), part) != filter->end();
}

// The partition name is copied (multifactor lends part_record's own string,
// a use-after-free if the partition goes away before packing: _filter_job in
// slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c), so
// the list frees it with its objects.
void DestroyFactors(void* object) {
  auto* factors = static_cast<priority_factors_object_t*>(object);
  if (!factors) return;
  xfree(factors->partition);
  slurm_destroy_priority_factors_object(factors);
}

// The job's factors as of the last pass that covered it, or as stored by
// priority_p_set since (multifactor's sprio shows the same values); the
// stored ones have no TRES, which are computed from the job.
priority_factors_object_t* NewFactors(const job_record_t* job, const part_record_t* part,
                                      const PluginConfig& config) {
  auto* obj = static_cast<priority_factors_object_t*>(xmalloc(sizeof(priority_factors_object_t)));
  StoredFactors from_pass;
  if (LastPassFactors(job, &from_pass)) {
    FillFactorsObject(from_pass, config, obj);
  } else if (job->prio_factors) {
    slurm_copy_priority_factors_object(obj, job->prio_factors);
    AddTresFactors(job, job->part_ptr ? job->part_ptr : part, config, obj);
  }
  obj->job_id = job->job_id;
  obj->user_id = job->user_id;
  obj->partition = xstrdup(part->name);
  return obj;
}

void AddJob(job_record_t* job, priority_factors_request_msg_t* request,
            const std::vector<part_record_t*>* part_filter, const PluginConfig& config, List out) {
  if (request->job_id_list && !ListHasId(request->job_id_list, job->job_id)) return;
  if (request->uid_list && !ListHasId(request->uid_list, job->user_id)) return;
  if (!job->part_ptr && !job->part_ptr_list) return;
  if (!job->part_ptr_list) {
    if (!PartitionWanted(part_filter, job->part_ptr)) return;
    priority_factors_object_t* obj;
    if (job->direct_set_prio) {
      obj = static_cast<priority_factors_object_t*>(xmalloc(sizeof(priority_factors_object_t)));
      obj->direct_prio = job->priority;
      obj->job_id = job->job_id;
      obj->user_id = job->user_id;
      obj->partition = xstrdup(job->part_ptr->name);
    } else {
      obj = NewFactors(job, job->part_ptr, config);
    }
    list_append(out, obj);
    return;
  }
  ListIterator it = list_iterator_create(job->part_ptr_list);
  while (auto* part = static_cast<part_record_t*>(list_next(it))) {
    if (!PartitionWanted(part_filter, part)) continue;
    priority_factors_object_t* obj = NewFactors(job, part, config);
    FactorsForPartition(job, part, config, obj);
    list_append(out, obj);
  }
  list_iterator_destroy(it);
}

// sprio walks every job record of the queue, reading a few fields of each
// on lines scattered over the heap: like the priority pass, it asks for
// them a few jobs ahead (first the record, then its details once the
// record has arrived), so that the misses overlap instead of adding up.
constexpr size_t kPrefetchRecordsAhead = 16;
constexpr size_t kPrefetchDetailsAhead = 8;

FAIRWAY_PREFETCH_HELPER void PrefetchRecord(const job_record_t* job) {
  __builtin_prefetch(&job->job_state);
  __builtin_prefetch(&job->details);
  __builtin_prefetch(&job->priority);
  __builtin_prefetch(&job->part_ptr);
  __builtin_prefetch(&job->job_id);
  __builtin_prefetch(&job->user_id);
  __builtin_prefetch(&job->direct_set_prio);
}

FAIRWAY_PREFETCH_HELPER void PrefetchDetails(const job_record_t* job) {
  if (const job_details* d = job->details) {
    __builtin_prefetch(&d->begin_time);
    __builtin_prefetch(&d->submit_time);
  }
}

bool Maysee(const job_record_t* job, uid_t uid) {
  if (!(slurm_conf.private_data & PRIVATE_DATA_JOBS)) return true;
  if (job->user_id == uid || validate_operator(uid)) return true;
  if (slurm_mcs_get_privatedata() == 0) {
    return assoc_mgr_is_user_acct_coord(acct_db_conn, uid, job->account);
  }
  return mcs_g_check_mcs_label(uid, job->mcs_label, false) == 0;
}

}  // namespace

List BuildPriorityFactorsList(priority_factors_request_msg_t* request, uid_t uid) {
  auto config = CurrentConfig();
  const uint32_t flags = config->params.flags;
  List result = nullptr;
  time_t now = time(nullptr);
  slurmctld_lock_t job_read_lock = {NO_LOCK, READ_LOCK, READ_LOCK, READ_LOCK, NO_LOCK};
  lock_slurmctld(job_read_lock);
  std::vector<part_record_t*> part_filter;
  if (request->partitions) {
    char* names = xstrdup(request->partitions);
    char* save = nullptr;
    for (char* tok = strtok_r(names, ",", &save); tok; tok = strtok_r(nullptr, ",", &save)) {
      if (part_record_t* part = find_part_record(tok)) part_filter.push_back(part);
    }
    xfree(names);
  }
  if (job_list && list_count(job_list)) {
    result = list_create(DestroyFactors);
    JobPointers jobs;
    ListJobs(&jobs);
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (i + kPrefetchRecordsAhead < jobs.size()) PrefetchRecord(jobs[i + kPrefetchRecordsAhead]);
      if (i + kPrefetchDetailsAhead < jobs.size()) PrefetchDetails(jobs[i + kPrefetchDetailsAhead]);
      job_record_t* job = jobs[i];
      if (!(flags & kFlagCalculateRunning) && !IS_JOB_PENDING(job)) continue;
      if (IS_JOB_REVOKED(job) || !job->details) continue;
      time_t use_time = (flags & kFlagAccrueAlways) ? job->details->submit_time
                                                    : job->details->begin_time;
      if (!use_time || use_time > now) continue;
      if (job->priority == 0) continue;
      if (!Maysee(job, uid)) continue;
      AddJob(job, request, request->partitions ? &part_filter : nullptr, *config, result);
    }
    if (!list_count(result)) FREE_NULL_LIST(result);
  }
  unlock_slurmctld(job_read_lock);
  return result;
}

}  // namespace fairway::plugin
