/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's files under StateSaveLocation: the decay clock
 * priority_last_decay_ran (multifactor's 16-byte format, so a site can
 * switch plugins either way) and any other state file (the planned-use
 * ledger; Slurm's usage files, which usage_save.c packs). Every write is
 * atomic (<name>.new, fsync, rename, fsync of the
 * directory) and keeps the previous copy as <name>.old, all under Slurm's
 * state-file lock. The pass statistics (fairway_pass_stats, for `fairway
 * metrics`) are written the same way, world-readable, without .old or
 * fsync. The lines logged here are grepped for by the reliability
 * tests (test/integration/reliability_*.sh): keep them word for word. */
#define _GNU_SOURCE /* asprintf */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "state_files.h"
#include "config_store.h"
#include "fw_host.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FW_CLOCK_FILE "priority_last_decay_ran"
#define FW_MAX_STATE_FILE_BYTES (256u << 20) /* far beyond any ledger */

/* What the plugin remembers per state file, under the state-file lock.
 * The plugin names seven files (the clock, the ledger, the other clusters'
 * usage and what it added, the pass statistics, and Slurm's assoc_usage
 * and qos_usage: usage_save.c), so a small array searched by name is all
 * a set or map would give; a name beyond its room is simply not remembered
 * (its failures are then said at every write). */
typedef enum {
	FW_FAILED_NONE,
	FW_FAILED_NEW,
	FW_FAILED_RENAME
} fw_failed_step_t;
typedef struct {
	char name[64];
	/* Found damaged and could not be moved aside: never linked to .old. */
	bool damaged_in_place;
	/* The last save failure said (step and errno): each kind is said once. */
	fw_failed_step_t failed_step;
	int failed_errno;
} fw_file_memory_t;
static fw_file_memory_t file_memory[8];
static bool told_dev_null; /* under the state-file lock */

static const char *state_dir(void)
{
	return fw_host_state_dir();
}

/* Requires the state-file lock. NULL when the table is full. */
static fw_file_memory_t *memory_of(const char *name)
{
	if (strlen(name) >= sizeof(file_memory[0].name))
		return NULL;
	for (size_t i = 0; i < sizeof(file_memory) / sizeof(file_memory[0]);
	     i++) {
		fw_file_memory_t *m = &file_memory[i];
		if (!m->name[0])
			strcpy(m->name, name);
		if (!strcmp(m->name, name))
			return m;
	}
	return NULL;
}

char *fw_state_path(const char *name, const char *suffix)
{
	return fw_format("%s/%s%s", state_dir(), name, suffix ? suffix : "");
}

/* Unlocked read of a whole file. *bytes ends with a NUL byte (one byte
 * more than is read is kept, and set at the end). */
static fw_read_t read_whole(const char *path, char **bytes, size_t *length,
			    char **why)
{
	*bytes = NULL;
	*length = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	/* ENOTDIR: StateSaveLocation (or a directory above it) is not a
   * directory, so nothing was ever saved there: missing, as multifactor
   * says ("No last decay ... to recover"), not damaged. */
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return FW_READ_MISSING;
	if (fd < 0) {
		*why = fw_format("cannot open: %s", strerror(errno));
		return FW_READ_UNREADABLE;
	}
	size_t capacity = 65536;
	ssize_t n;
	struct stat st; /* a file known too large is not read at all */
	bool failed = fstat(fd, &st) == 0 &&
		      st.st_size > (off_t) FW_MAX_STATE_FILE_BYTES;
	if (failed)
		*why = fw_format(
			"file is larger than any state file the plugin writes");
	*bytes = malloc(capacity + 1);
	if (!*bytes && !failed) {
		*why = fw_format("out of memory");
		failed = true;
	}
	while (!failed &&
	       (n = read(fd, *bytes + *length, capacity - *length)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*why = fw_format("read error: %s", strerror(errno));
			failed = true;
		} else if ((*length += (size_t) n) > FW_MAX_STATE_FILE_BYTES) {
			*why = fw_format(
				"file is larger than any state file the plugin writes");
			failed = true;
		} else if (*length == capacity) {
			capacity *= 2;
			char *grown = realloc(*bytes, capacity + 1);
			if (!grown) {
				*why = fw_format("out of memory");
				failed = true;
			} else {
				*bytes = grown;
			}
		}
	}
	close(fd);
	if (!failed) {
		(*bytes)[*length] = '\0';
		return FW_READ_OK;
	}
	free(*bytes);
	*bytes = NULL;
	*length = 0;
	return FW_READ_UNREADABLE;
}

fw_read_t fw_state_read(const char *name, const char *suffix, char **bytes,
			size_t *length, char **why)
{
	char *path = fw_state_path(name, suffix);
	fw_host_lock_state_files();
	fw_read_t result = read_whole(path, bytes, length, why);
	fw_host_unlock_state_files();
	free(path);
	return result;
}

bool fw_state_set_aside(const char *name)
{
	/* Moved away so that the next write does not link it to <name>.old over
   * the good previous copy. */
	char *path = fw_state_path(name, ""),
	     *aside = fw_state_path(name, ".damaged");
	fw_host_lock_state_files();
	bool moved = rename(path, aside) == 0;
	if (!moved && errno != ENOENT) {
		const int err = errno;
		fw_file_memory_t *m = memory_of(name);
		if (!m || !m->damaged_in_place)
			fw_log(FW_LOG_ERROR,
			       "cannot move the damaged %s aside to %s: %s. %s.old is kept as the last good "
			       "copy; remove %s (and %s) by hand",
			       path, aside, strerror(err), path, path, aside);
		if (m)
			m->damaged_in_place = true;
	}
	fw_host_unlock_state_files();
	free(path);
	free(aside);
	return moved;
}

/* Requires the state-file lock. what: the file and the error; todo: what
 * the site must do. Said once per kind until a save succeeds. */
static void save_failed(const char *name, fw_failed_step_t step, int err,
			const char *what, const char *todo, bool report)
{
	fw_file_memory_t *m = memory_of(name);
	if (m && m->failed_step == step && m->failed_errno == err)
		return;
	if (m) {
		m->failed_step = step;
		m->failed_errno = err;
	}
	if (report) /* nothing is recovered from it: say only that */
		fw_log(FW_LOG_ERROR,
		       "cannot save the pass statistics %s; %s. Said once until a save succeeds; "
		       "priorities are not affected, `fairway metrics` shows the previous pass",
		       what, todo);
	else
		fw_log(FW_LOG_ERROR,
		       "cannot save state file %s (the previous file is kept); %s. Said once until a save "
		       "succeeds: the plugin runs on what it holds in memory, and a restart before then "
		       "recovers from the files there (doc/reliability.md)",
		       what, todo);
}

/* How a file is written: state (0600, .old kept, synced) or a report for
 * other programs to read (0644, no .old, not synced: losing it in a crash
 * loses nothing the plugin needs). */
typedef struct {
	mode_t mode;
	bool keep_old, sync, report;
} fw_write_kind_t;
static const fw_write_kind_t state_kind = { 0600, true, true, false };
static const fw_write_kind_t report_kind = { 0644, false, false, true };

/* Requires the state-file lock. Writes and syncs <name>.new; on failure
 * says why and removes it. */
static bool write_new(const char *name, const char *new_path, const char *bytes,
		      size_t length, const fw_write_kind_t *kind)
{
	int fd = open(new_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      kind->mode),
	    err = 0;
	if (fd < 0) {
		err = errno;
	} else {
		/* The mode asked, whatever slurmctld's umask. */
		if (fchmod(fd, kind->mode) != 0)
			err = errno;
		for (size_t done = 0; done < length && !err;) {
			ssize_t n = write(fd, bytes + done, length - done);
			if (n > 0)
				done += (size_t) n;
			else if (n == 0)
				err = ENOSPC;
			else if (errno != EINTR)
				err = errno;
		}
		if (!err && kind->sync && fsync(fd) != 0)
			err = errno;
		if (close(fd) != 0 && !err)
			err = errno;
	}
	if (!err)
		return true;
	char *what = fw_format("%s: %s", new_path, strerror(err));
	save_failed(name, FW_FAILED_NEW, err, what,
		    err == ENOTDIR ? "make StateSaveLocation a directory" :
		    fd < 0         ? "make StateSaveLocation writable" :
				     "free space in StateSaveLocation",
		    kind->report);
	free(what);
	if (fd >= 0)
		unlink(new_path);
	return false;
}

/* Requires the state-file lock. Keeps the current file as .old, unless it
 * is not a regular file or is known damaged: then the existing .old is the
 * last good copy and stays. */
static void keep_previous(const char *name, const char *path,
			  const char *old_path)
{
	struct stat st;
	fw_file_memory_t *m = memory_of(name);
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (m && m->damaged_in_place))
		return;
	unlink(old_path);
	if (link(path, old_path) != 0)
		fw_log(FW_LOG_VERBOSE, "could not keep %s: %s", old_path,
		       strerror(errno));
}

/* Atomically replaces StateSaveLocation/<name> as kind says. */
static bool write_atomically(const char *name, const char *bytes, size_t length,
			     const fw_write_kind_t *kind)
{
	bool ok = false;
	char *path = fw_state_path(name, ""),
	     *new_path = fw_state_path(name, ".new"),
	     *old_path = fw_state_path(name, ".old");
	fw_host_lock_state_files();
	if (!strcmp(state_dir(), "/dev/null")) {
		if (!told_dev_null) /* said once, not at every pass */
			fw_log(FW_LOG_ERROR,
			       "Can not save priority state information, StateSaveLocation is /dev/null");
		told_dev_null = true;
	} else if (write_new(name, new_path, bytes, length, kind)) {
		if (kind->keep_old)
			keep_previous(name, path, old_path);
		if (rename(new_path, path) != 0) {
			const int err = errno;
			char *what = fw_format("%s: rename from %s: %s", path,
					       new_path, strerror(err));
			char *todo =
				fw_format("remove or move what is at %s", path);
			save_failed(name, FW_FAILED_RENAME, err, what, todo,
				    kind->report);
			free(what);
			free(todo);
			unlink(new_path);
		} else {
			int dir_fd = kind->sync ? open(state_dir(),
						       O_RDONLY | O_DIRECTORY |
							       O_CLOEXEC) :
						  -1;
			if (dir_fd >=
			    0) { /* the rename itself survives a crash */
				fsync(dir_fd);
				close(dir_fd);
			}
			fw_file_memory_t *m = memory_of(name);
			if (m && m->failed_step != FW_FAILED_NONE)
				fw_log(FW_LOG_INFO, "%s %s saved again",
				       kind->report ? "pass statistics" :
						      "state file",
				       path);
			if (m) { /* a good file now replaces any damaged one */
				m->failed_step = FW_FAILED_NONE;
				m->damaged_in_place = false;
			}
			ok = true;
		}
	}
	fw_host_unlock_state_files();
	free(path);
	free(new_path);
	free(old_path);
	return ok;
}

bool fw_state_write(const char *name, const char *bytes, size_t length)
{
	return write_atomically(name, bytes, length, &state_kind);
}

bool fw_state_write_report(const char *name, const char *text)
{
	return write_atomically(name, text, strlen(text), &report_kind);
}

bool fw_state_write_clock(time_t last_ran, time_t last_reset)
{
	unsigned char bytes[FW_DECAY_CLOCK_BYTES];
	fw_serialize_decay_clock(last_ran, last_reset, bytes);
	return fw_state_write(FW_CLOCK_FILE, (const char *) bytes,
			      sizeof(bytes));
}

/* One file for the recovery rule; *buffer and *why (xfree them) hold what
 * file points at. clock: a size other than 16 bytes is damage, found
 * without reading (the file may be huge). */
static void read_for_recovery(const char *name, const char *suffix, bool clock,
			      fw_file_t *file, char **buffer, char **why)
{
	struct stat st;
	char *path = fw_state_path(name, suffix);
	memset(file, 0, sizeof(*file));
	if (clock && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size != FW_DECAY_CLOCK_BYTES) {
		file->state = FW_FILE_DAMAGED;
		*why = fw_format("file is %lld bytes, expected 16",
				 (long long) st.st_size);
	} else {
		switch (fw_state_read(name, suffix, buffer, &file->length,
				      why)) {
		case FW_READ_OK:
			file->state = FW_FILE_OK;
			break;
		case FW_READ_MISSING:
			file->state = FW_FILE_MISSING;
			break;
		case FW_READ_UNREADABLE:
			file->state = FW_FILE_DAMAGED;
			break;
		}
	}
	file->bytes = *buffer;
	file->why = *why;
	free(path);
}

void fw_state_recover(uint16_t reset_period, time_t now, fw_recovery_t *out)
{
	fw_file_t files[3];
	char *buffers[3] = { NULL, NULL, NULL },
	     *whys[3] = { NULL, NULL, NULL };
	read_for_recovery(FW_CLOCK_FILE, "", true, &files[0], &buffers[0],
			  &whys[0]);
	read_for_recovery(FW_CLOCK_FILE, ".old", true, &files[1], &buffers[1],
			  &whys[1]);
	/* Slurm's assoc_usage, read before slurmctld saves it again. */
	read_for_recovery("assoc_usage", "", false, &files[2], &buffers[2],
			  &whys[2]);
	uint16_t min_version, max_version;
	fw_host_protocol_versions(&min_version, &max_version);
	fw_decide_recovery(&files[0], &files[1], &files[2], min_version,
			   max_version, now, fw_host_calc_period(),
			   reset_period, out);
	for (int i = 0; i < 3; i++) {
		free(buffers[i]);
		free(whys[i]);
	}
	/* Set aside first: the one line below then says where the damage is. */
	const bool set_aside =
		out->clock_damaged && fw_state_set_aside(FW_CLOCK_FILE);
	if (out->message && out->error && set_aside) {
		fw_log(FW_LOG_ERROR,
		       "state in %s: %s; the damaged file is kept as %s/%s.damaged",
		       state_dir(), out->message, state_dir(), FW_CLOCK_FILE);
	} else if (out->message && out->error) {
		fw_log(FW_LOG_ERROR, "state in %s: %s", state_dir(),
		       out->message);
	} else if (out->message) {
		fw_log(FW_LOG_INFO, "state in %s: %s", state_dir(),
		       out->message);
	}
	free(out->message); /* the core's malloc */
	out->message = NULL;
}
