#include <benchd/common/temp_folder.hpp>
#include <benchd/tls/temporary_identity.hpp>

#include <system_error>

namespace benchd::tls {

TemporaryIdentity::TemporaryIdentity(const IdentityRequest& request, std::string_view folder_prefix,
                                     std::string_view purpose)
    : folder_(common::makePrivateTempFolder(folder_prefix, purpose)) {
  try {
    files_ = writeIdentity(makeSelfSignedIdentity(request), folder_);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
    throw;
  }
}

TemporaryIdentity::~TemporaryIdentity() {
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

}  // namespace benchd::tls
