/* Runs a program the way systemd's MemoryDenyWriteExecute=yes runs a service, using the
 * kernel's own switch for it (prctl PR_SET_MDWE, Linux 6.3 and later; systemd uses it where the
 * kernel has it): from then on no mapping may be writable and executable, and no mapping may
 * become executable. The setting is inherited by children and kept across execve.
 *
 *   mdwe_exec PROGRAM [ARG...]   sets it, then execs PROGRAM (exit 77: unsupported kernel)
 *   mdwe_exec --probe            only tries to map a writable and executable page and prints
 *                                "refused" or "allowed" (so a test can see the setting work)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/mman.h>
#include <sys/prctl.h>

/* Debian 12's kernel headers (6.1) predate the prctl. */
#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#endif
#ifndef PR_MDWE_REFUSE_EXEC_GAIN
#define PR_MDWE_REFUSE_EXEC_GAIN 1UL
#endif

enum { kExitUnsupported = 77, kExitExecFailed = 127, kExitUsage = 2 };

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PROGRAM [ARG...] | --probe\n", argv[0]);
    return kExitUsage;
  }
  if (strcmp(argv[1], "--probe") == 0) {
    void* page =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    puts(page == MAP_FAILED ? "refused" : "allowed");
    return 0;
  }
  if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0UL, 0UL, 0UL) != 0) {
    fprintf(stderr, "mdwe_exec: prctl(PR_SET_MDWE) failed: %s\n", strerror(errno));
    return kExitUnsupported;
  }
  execvp(argv[1], argv + 1);
  fprintf(stderr, "mdwe_exec: %s: %s\n", argv[1], strerror(errno));
  return kExitExecFailed;
}
