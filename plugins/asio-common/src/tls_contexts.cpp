#include <benchd/asio_common/tls_contexts.hpp>
#include <benchd/tls_support/tls_context.hpp>

namespace benchd::asio_common {

namespace ssl = boost::asio::ssl;

std::unique_ptr<TlsContexts> makeTlsContexts(const sdk::ServerSettings& settings) {
  if (!settings.hasProfile("tls") && !settings.hasProfile("h2"))
    return nullptr;
  auto contexts = std::make_unique<TlsContexts>();
  contexts->offers_h2 = settings.hasProfile("h2");
  for (ssl::context* context : {&contexts->server, &contexts->client})
    context->set_options(ssl::context::default_workarounds);
  tls_support::configureServer(contexts->server.native_handle(), settings, contexts->offers_h2);
  tls_support::configureClient(contexts->client.native_handle());
  return contexts;
}

bool negotiatedHttp2(TlsStream& stream) {
  return tls_support::negotiatedHttp2(stream.native_handle());
}

}  // namespace benchd::asio_common
