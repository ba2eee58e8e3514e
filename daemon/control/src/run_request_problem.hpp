#pragma once

#include <benchd/http/response.hpp>
#include <benchd/runner/run_preparation.hpp>

#include <optional>
#include <string_view>

namespace benchd::control {

// A run request the runner refused (runner::RunRequestError), in the REST API's words: the
// runner names the part of the request neutrally; POST /api/v1/runs names its body member and
// adds what an API client can do about it.

/// The member of POST /api/v1/runs's body that `field` is about ("scenarioFile",
/// "warmupSeconds", "testSeconds"); nothing for the parts of a request the API does not take
/// (the CPU sets, which only `benchd run` sets).
std::optional<std::string_view> runRequestMember(runner::RunRequestField field);

/// A 400 problem whose `field` is runRequestMember(error.field()) and whose detail is the
/// runner's reason, followed by the API's remedy where it has one (a scenario file that is not
/// there: upload it). Nothing when the API has no member for the field: such a request did not
/// come from an API client, so it is no client error.
std::optional<http::Response> runRequestProblem(const runner::RunRequestError& error);

}  // namespace benchd::control
