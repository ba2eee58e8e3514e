#pragma once

#include <benchd/tls/temporary_identity.hpp>

#include <memory>

namespace benchd::runner {

/// The certificate and key the workers of a run's `tls` and `h2` rows serve with, for
/// 127.0.0.1 and localhost: made by the first such row and kept for the others, in a private
/// temporary folder removed with the object. Runner thread only. Throws what
/// tls::TemporaryIdentity throws, naming what failed.
[[nodiscard]] std::unique_ptr<tls::TemporaryIdentity> makeRunCertificate();

}  // namespace benchd::runner
