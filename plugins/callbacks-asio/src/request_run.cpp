#include "request_run.hpp"

#include "server.hpp"
#include "upstream_call.hpp"

#include <benchd/asio_common/connection_tracking.hpp>

#include <variant>

namespace benchd::callbacks_asio {

using asio_common::LoopCounters;
using boost::system::error_code;

RequestRun::RequestRun(asio_common::EventLoop& loop, const sdk::Host& host)
    : loop_(loop), host_(host), delay_timer_(loop.io) {}

void RequestRun::start(std::shared_ptr<void> owner, std::string_view method,
                       std::string_view target, std::string body,
                       asio_common::InboundStream inbound, boost::beast::flat_buffer& buffer,
                       Finish finish) {
  finish_ = std::move(finish);
  auto classified = sdk::classifyRequest(method, target, kApproachName);
  if (auto* reply = std::get_if<sdk::Reply>(&classified)) {
    end({std::move(*reply), false});
    return;
  }
  request_ = std::move(std::get<sdk::ServiceRequest>(classified));
  body_ = std::move(body);
  if (request_.delay_call_depth > 0) {
    LoopCounters::add(loop_.counters.upstream_calls, 1);
    watch_.emplace(inbound, buffer);
    // May complete at once (no upstream capacity left): nothing may follow this call.
    callUpstream(loop_, sdk::upstreamTarget(kApproachName, request_), *watch_,
                 [this, owner = std::move(owner)](const UpstreamResult& result) {
                   onUpstreamDone(result, owner);
                 });
  } else if (request_.delay_millis > 0) {
    delay_timer_.expires_after(std::chrono::milliseconds(request_.delay_millis));
    watch_.emplace(inbound, buffer);
    interruption_.emplace(watch_->interruptWith([this] { delay_timer_.cancel(); }));
    delay_timer_.async_wait([this, owner = std::move(owner)](error_code wait_error) {
      onDelayElapsed(wait_error, owner);
    });
  } else {
    answer(std::move(owner));
  }
}

void RequestRun::onDelayElapsed(error_code error, std::shared_ptr<void> owner) {
  interruption_.reset();
  if (watch_->clientGone()) {
    end({});
  } else if (error) {
    end({sdk::errorReply(503, "delay interrupted: " + error.message()), true});
  } else {
    answer(std::move(owner));
  }
}

void RequestRun::onUpstreamDone(const UpstreamResult& result, std::shared_ptr<void> owner) {
  if (watch_->clientGone()) {
    end({});
  } else if (result.error) {
    end({sdk::nestedCallFailedReply(result.error.message()), false});
  } else if (result.status != 200) {
    end({sdk::nestedCallAnsweredReply(result.status), false});
  } else {
    answer(std::move(owner));
  }
}

void RequestRun::answer(std::shared_ptr<void> owner) {
  watch_.reset();
  asio_common::DatabasePool* database = loop_.group.database();
  if (database == nullptr || !sdk::usesDatabase(request_)) {
    end({host_.answer(request_, body_), false});
    return;
  }
  database->asyncRun(loop_.io.get_executor(), request_, body_,
                     [this, owner = std::move(owner)](const sdk::Reply& reply) {
                       end({reply, false});
                     });
}

void RequestRun::end(const RequestOutcome& outcome) {
  interruption_.reset();
  watch_.reset();
  Finish finish = std::move(finish_);
  finish_ = nullptr;
  finish(outcome);
}

}  // namespace benchd::callbacks_asio
