#include "service/log/traceparent.h"

#include <string>

#include "gtest/gtest.h"

namespace halma::service {
namespace {

constexpr char kTrace[] = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr char kValid[] =
    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(TraceparentTest, Valid) {
  EXPECT_EQ(TraceIdFromTraceparent(kValid), kTrace);
  EXPECT_EQ(TraceIdFromTraceparent(
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"),
            kTrace);
  EXPECT_EQ(TraceIdFromTraceparent(std::string(" \t") + kValid + " "), kTrace);
  // A later version may carry more fields after another '-'.
  EXPECT_EQ(TraceIdFromTraceparent(
                "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-xyz"),
            kTrace);
  EXPECT_EQ(TraceIdFromTraceparent(
                "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
            kTrace);
}

TEST(TraceparentTest, WrongLengthsAndSeparators) {
  const std::string v = kValid;
  EXPECT_FALSE(TraceIdFromTraceparent(""));
  EXPECT_FALSE(TraceIdFromTraceparent(v.substr(0, 54)));
  EXPECT_FALSE(TraceIdFromTraceparent(v + "0"));
  EXPECT_FALSE(TraceIdFromTraceparent(v + "-"));  // Version 00: nothing more.
  EXPECT_FALSE(TraceIdFromTraceparent(
      "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01"));
  EXPECT_FALSE(TraceIdFromTraceparent(
      "00-4bf92f3577b34da6a3ce929d0e0e47360-0f067aa0ba902b7-01"));
  EXPECT_FALSE(TraceIdFromTraceparent(
      "000-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1"));
  EXPECT_FALSE(TraceIdFromTraceparent(
      "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01"));
  EXPECT_FALSE(TraceIdFromTraceparent(
      "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"));
  EXPECT_FALSE(TraceIdFromTraceparent(
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g"));
  EXPECT_FALSE(TraceIdFromTraceparent(
      "00-4bf92f3577b34da6a3ce929d0e0e473z-00f067aa0ba902b7-01"));
}

TEST(TraceparentTest, ZeroIds) {
  EXPECT_FALSE(TraceIdFromTraceparent(
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01"));
  EXPECT_FALSE(TraceIdFromTraceparent(
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"));
}

TEST(TraceparentTest, VersionFf) {
  EXPECT_FALSE(TraceIdFromTraceparent(
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
}

TEST(TraceparentTest, UppercaseHex) {
  EXPECT_FALSE(TraceIdFromTraceparent(
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"));
  EXPECT_FALSE(TraceIdFromTraceparent(
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01"));
  EXPECT_FALSE(TraceIdFromTraceparent(
      "0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
  EXPECT_FALSE(TraceIdFromTraceparent(
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A"));
}

}  // namespace
}  // namespace halma::service
