#pragma once

#include <h2o.h>

namespace benchd::h2o_plugin {

/// h2o's handler of every request (the one path "/"), on the loop thread of its connection:
/// answers at once what needs no wait, else hands the request to a WaitingRequest. Returns 0
/// (the request is h2o's to answer later, never refused to the next handler).
int onRequest(h2o_handler_t* handler, h2o_req_t* req);

}  // namespace benchd::h2o_plugin
