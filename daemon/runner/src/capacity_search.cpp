#include <benchd/runner/capacity_search.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace benchd::runner {

std::string verdictName(CapacityVerdict verdict) {
  switch (verdict) {
    case CapacityVerdict::kSearching:
      return "searching";
    case CapacityVerdict::kFound:
      return "found";
    case CapacityVerdict::kNone:
      return "none";
    case CapacityVerdict::kGeneratorSaturated:
      return "generator-saturated";
    case CapacityVerdict::kAtMaximum:
      return "at-maximum";
    case CapacityVerdict::kTrialLimit:
      return "trial-limit";
  }
  return "unknown";
}

CapacitySearch::CapacitySearch(CapacitySearchSettings settings) : settings_(settings) {
  const auto check = [](bool holds, const char* what) {
    if (!holds) {
      throw std::invalid_argument(what);
    }
  };
  check(settings_.min_rate > 0.0 && settings_.min_rate <= settings_.max_rate,
        "capacity search: min_rate must be above 0 and at most max_rate");
  check(settings_.start_rate >= settings_.min_rate && settings_.start_rate <= settings_.max_rate,
        "capacity search: start_rate must be from min_rate to max_rate");
  check(settings_.resolution >= 0.001 && settings_.resolution <= 1.0,
        "capacity search: resolution must be from 0.001 (0.1 %) to 1 (100 %)");
  check(settings_.max_trials >= 2, "capacity search: max_trials must be at least 2");
  check(settings_.step_factor >= 1.01 && settings_.step_factor <= 16.0,
        "capacity search: step_factor must be from 1.01 to 16");
  next_ = settings_.start_rate;
}

std::optional<double> CapacitySearch::nextRate() const {
  if (verdict_ != CapacityVerdict::kSearching) {
    return std::nullopt;
  }
  return next_;
}

void CapacitySearch::end(CapacityVerdict verdict) {
  verdict_ = verdict;
  confirming_ = false;
}

void CapacitySearch::record(TrialOutcome outcome) {
  if (verdict_ != CapacityVerdict::kSearching) {
    throw std::logic_error("capacity search: a trial recorded after the search ended");
  }
  const double rate = next_;
  trials_.push_back({rate, outcome, confirming_});
  if (outcome == TrialOutcome::kPass) {
    passes_.push_back(rate);
    if (confirming_) {
      low_confirmed_ = true;
    } else if (!low_ || rate > *low_) {
      low_ = rate;
      low_confirmed_ = false;
    }
  } else {
    // A trial where the generator saturated brackets like a failure: the search narrows below
    // it all the same, and only the verdict says whose limit the bracket's top end is.
    if (!high_ || rate <= *high_) {
      high_saturated_ = outcome == TrialOutcome::kGeneratorSaturated;
    }
    high_ = high_ ? std::min(*high_, rate) : rate;
    if (confirming_ || (low_ && rate <= *low_)) {
      // The low end failed its second trial: the highest pass below it becomes the low end.
      std::erase_if(passes_, [rate](double pass) { return pass >= rate; });
      low_.reset();
      if (!passes_.empty()) {
        low_ = *std::max_element(passes_.begin(), passes_.end());
      }
      low_confirmed_ = false;
    }
  }
  confirming_ = false;
  plan();
}

void CapacitySearch::plan() {
  // Narrow enough at the resolution, or within 1 req/s: trials run at whole rates, so a finer
  // bracket at a low rate would only repeat them.
  if (low_ && high_ &&
      ((*high_ - *low_) / *low_ <= settings_.resolution || *high_ - *low_ <= 1.0) &&
      low_confirmed_) {
    end(high_saturated_ ? CapacityVerdict::kGeneratorSaturated : CapacityVerdict::kFound);
    return;
  }
  if (trials_.size() >= settings_.max_trials) {
    end(CapacityVerdict::kTrialLimit);
    return;
  }
  if (!low_ && high_) {
    const double lower = *high_ / settings_.step_factor;
    if (*high_ <= settings_.min_rate) {
      end(CapacityVerdict::kNone);
      return;
    }
    next_ = std::max(lower, settings_.min_rate);
    return;
  }
  if (low_ && !high_) {
    if (*low_ >= settings_.max_rate) {
      end(CapacityVerdict::kAtMaximum);
      return;
    }
    next_ = std::min(*low_ * settings_.step_factor, settings_.max_rate);
    return;
  }
  // Both ends known.
  if ((*high_ - *low_) / *low_ > settings_.resolution && *high_ - *low_ > 1.0) {
    next_ = std::sqrt(*low_ * *high_);
    return;
  }
  next_ = *low_;
  confirming_ = true;
}

}  // namespace benchd::runner
