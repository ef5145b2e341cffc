// Spec profiles: only the spec's three are accepted, by the library and through the C extension.
#include <gtest/gtest.h>

#include "core/profile.h"
#include "gradconf/aclnn_ext.h"

namespace gradconf {
namespace {

TEST(Profiles, the_three_profiles_parse_and_print_back) {
  for (SpecProfile p : implemented_profiles()) EXPECT_EQ(parse_profile(profile_name(p)), p);
  EXPECT_EQ(implemented_profiles().size(), 3u);
  EXPECT_EQ(parse_profile("cann-latest"), SpecProfile::kCannLatest);
}

TEST(Profiles, typos_are_refused) {
  EXPECT_EQ(parse_profile("Seed"), std::nullopt);
  EXPECT_EQ(parse_profile("cann_latest"), std::nullopt);
  EXPECT_EQ(parse_profile(""), std::nullopt);
  const std::string before = gradconfGetSpecProfile();
  EXPECT_EQ(gradconfSetSpecProfile("latest"), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(gradconfSetSpecProfile(nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(std::string(gradconfGetSpecProfile()), before);
  EXPECT_EQ(gradconfSetSpecProfile("extended"), ACLNN_SUCCESS);
  EXPECT_EQ(spec_profile(), SpecProfile::kExtended);
  EXPECT_EQ(gradconfSetSpecProfile(before.c_str()), ACLNN_SUCCESS);
}

}  // namespace
}  // namespace gradconf
