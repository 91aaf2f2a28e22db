// File: temporaries.h
// The temporaries ropecheck writes before renaming them into place (atomic_write's and
// atomic_create's files, the report's directory), registered so that an interrupt removes them:
// an interrupted run leaves neither a half-written output nor a hidden temporary.
//
// Contract.
//  - A Temporary registers a path (file or directory) for as long as it lives; its destructor
//    removes whatever is still at that path (recursively) and deregisters it. A temporary that was
//    renamed into place is no longer at its path, so nothing published is ever removed.
//  - install_interrupt_cleanup(): for a program's main (the CLI), called once before any other
//    thread starts. SIGINT, SIGTERM and SIGHUP (each unless the process was started ignoring it,
//    e.g. under nohup) are blocked in the calling thread, hence in every thread started after it,
//    and one thread waits for them. On one it takes the registry's lock (so no commit() is half
//    done), removes every registered temporary, prints one line on stderr and ends the process with
//    _exit(128 + signal): 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. Without it (the C ABI, a
//    library user) the registry only costs a mutex per temporary and signals keep their disposition.
//  - Child processes must be started with the signal mask reset (report/child_process.h does).
#pragma once

#include <functional>
#include <string>

namespace ropecheck {

class Temporary {
 public:
  Temporary() = default;
  // Registers `path`; creates nothing. Register before creating, so no instant exists in which
  // the temporary is on disk but unknown to the cleanup.
  explicit Temporary(std::string path);
  // Creates a fresh directory from `pattern` (ending in "XXXXXX", as mkdtemp(3)) and registers it
  // under the registry's lock. Returns: an empty Temporary (path() == "") when mkdtemp fails, with
  // errno set.
  static Temporary make_directory(std::string pattern);
  Temporary(Temporary&& other) noexcept;
  Temporary& operator=(Temporary&& other) noexcept;
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  ~Temporary();

  const std::string& path() const { return path_; }

  // Deregisters the path without removing anything (e.g. a name whose creation failed because
  // another writer's file has it). The Temporary is empty afterwards.
  void release();

  // Runs `publish` (e.g. the renames that put the temporary in place) under the registry's lock:
  // an interrupt removes the temporaries either before publish starts or after it ends, never in
  // the middle. `publish` must not create or destroy Temporary objects (the lock is not recursive).
  void commit(const std::function<void()>& publish);

 private:
  std::string path_;
};

// See the contract above. Idempotent.
void install_interrupt_cleanup();

// Stale temporaries. A run killed by SIGKILL (or a power cut) cannot clean up. Every temporary's
// name holds its writer's PID: ".<name>.tmp.<pid>" and ".<name>.tmp.<pid>.<n>" (atomic_write.h),
// ".<name>.tmp-<pid>-XXXXXX" (directories: temporary_directory_pattern), ".<name>.old-<pid>" (a
// report moved aside while its replacement is renamed into place).
// Returns: the mkdtemp pattern of a temporary directory for `target`: beside it, with this PID.
std::string temporary_directory_pattern(const std::string& target);
// For every temporary of `target` in its directory whose PID names no running process: removes it,
// except a ".old-" one whose target is missing, which is renamed back to `target` (the run was
// killed between a replacement's two renames: it is the only copy). Temporaries of running
// processes (this one, a concurrent run, or a reused PID) are left alone.
// Returns: one line saying what was found and done ("" when nothing was found), for the caller to
// print. Never throws: a temporary that cannot be removed is reported in the line.
std::string sweep_stale_temporaries(const std::string& target);

}  // namespace ropecheck
