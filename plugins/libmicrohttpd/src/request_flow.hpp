#pragma once
// MHD's callbacks for one server: they read each request (its raw target, its body), check and
// classify it, run its waits and queue its answer. Each takes the ServerState as its closure
// (`cls`). MHD calls them on the connection's thread; a connection's callbacks never run
// concurrently with each other.

#include <microhttpd.h>

#include <cstddef>

namespace benchd::libmicrohttpd {

/// MHD_OPTION_NOTIFY_CONNECTION: makes and frees the connection's context.
void onConnection(void* cls, MHD_Connection* connection, void** socket_context,
                  MHD_ConnectionNotificationCode code);

/// MHD_OPTION_URI_LOG_CALLBACK: keeps the request target as the client sent it (MHD's `url`
/// is decoded and without the query); returns the connection's context, which MHD hands the
/// access handler as its `con_cls`.
void* onRequestTarget(void* cls, const char* uri, MHD_Connection* connection);

/// The MHD_AccessHandlerCallback: the body's chunks, then the answer.
MHD_Result onRequest(void* cls, MHD_Connection* connection, const char* url, const char* method,
                     const char* version, const char* upload_data, std::size_t* upload_data_size,
                     void** con_cls);

/// MHD_OPTION_NOTIFY_COMPLETED: the answer was sent (or the request was given up).
void onRequestEnded(void* cls, MHD_Connection* connection, void** con_cls,
                    MHD_RequestTerminationCode code);

}  // namespace benchd::libmicrohttpd
