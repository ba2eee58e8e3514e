// Where benchd keeps its state when its config names no folder: systemd's $STATE_DIRECTORY,
// then the XDG state home, then the home folder, then /var/lib.
#include <benchd/common/state_folder.hpp>

#include <gtest/gtest.h>

namespace benchd::common {
namespace {

TEST(StateFolder, SystemdsStateDirectoryComesFirstAndIsTheFolderItself) {
  EXPECT_EQ(defaultStateFolder("/var/lib/benchd", "/home/u/.state", "/home/u"), "/var/lib/benchd");
  EXPECT_EQ(defaultStateFolder("/var/lib/private/benchd", nullptr, nullptr),
            "/var/lib/private/benchd");
  EXPECT_EQ(defaultStateFolder("/srv/a:/srv/b", nullptr, nullptr), "/srv/a")
      << "the first of several StateDirectory= entries";
}

TEST(StateFolder, ThenTheXdgStateHomeThenTheHomeFolder) {
  EXPECT_EQ(defaultStateFolder(nullptr, "/home/u/.state", "/home/u"), "/home/u/.state/benchd");
  EXPECT_EQ(defaultStateFolder(nullptr, nullptr, "/home/u"), "/home/u/.local/state/benchd");
  EXPECT_EQ(defaultStateFolder(nullptr, nullptr, nullptr), "/var/lib/benchd");
  EXPECT_EQ(defaultStateFolder(nullptr, nullptr, ""), "/var/lib/benchd");
}

TEST(StateFolder, RelativeOrEmptyVariablesAreIgnored) {
  EXPECT_EQ(defaultStateFolder("", "", "/home/u"), "/home/u/.local/state/benchd");
  EXPECT_EQ(defaultStateFolder("relative", "relative/too", "/home/u"),
            "/home/u/.local/state/benchd");
}

}  // namespace
}  // namespace benchd::common
