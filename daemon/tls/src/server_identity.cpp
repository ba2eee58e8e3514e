#include <benchd/tls/server_identity.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <system_error>

namespace benchd::tls {

IdentityFiles loadOrCreateIdentity(const std::filesystem::path& folder,
                                   const IdentityRequest& request) {
  IdentityFiles files{folder / "key.pem", folder / "cert.pem"};
  std::error_code error;
  const bool has_key = std::filesystem::exists(files.private_key, error);
  const bool has_certificate = std::filesystem::exists(files.certificate, error);
  if (!has_key && !has_certificate) {
    std::filesystem::create_directories(folder, error);
    if (error)
      throw TlsIdentityError("cannot make the folder " + folder.string() + ": " + error.message());
    return writeIdentity(makeSelfSignedIdentity(request), folder);
  }
  if (!has_key || !has_certificate) {
    const std::filesystem::path& alone = has_key ? files.private_key : files.certificate;
    const std::filesystem::path& missing = has_key ? files.certificate : files.private_key;
    throw TlsIdentityError(alone.string() + " is there without " + missing.string() +
                           ": delete it to get a new identity (peers that pinned the old "
                           "certificate must pin the new one)");
  }
  struct stat status {};
  if (::stat(files.private_key.c_str(), &status) != 0)
    throw TlsIdentityError("cannot read " + files.private_key.string() + ": " +
                           std::strerror(errno));
  if ((status.st_mode & (S_IRWXG | S_IRWXO)) != 0)
    throw TlsIdentityError(files.private_key.string() +
                           ": the private key may be read by others; chmod 600 it");
  // Both must be PEM that serves: the certificate at least parses here, the pair is checked
  // where the server loads it.
  (void)certificateFingerprint(readPemFile(files.certificate));
  return files;
}

std::string readPemFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw TlsIdentityError("cannot read " + file.string() + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace benchd::tls
