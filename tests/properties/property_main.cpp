// main() of the property suites: applies GRADCONF_PROPERTY_SCALE to RapidCheck's case count
// before any property runs, then hands over to GoogleTest.
#include <gtest/gtest.h>

#include "property_support.h"

int main(int argc, char** argv) {
  gradconf::props::testing::configure_rapidcheck_from_scale();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
