// INFINICORE_ALLOC_CONF parsing.
#include "allocator_config.hpp"

#include "infinicore/error.hpp"

#include <gtest/gtest.h>

namespace infinicore::test {
namespace {

using detail::AllocatorConfig;

TEST(AllocatorConfig, DefaultsWhenEmpty) {
    AllocatorConfig config = AllocatorConfig::parse("");
    EXPECT_EQ(config.max_split_size, SIZE_MAX);
    EXPECT_EQ(config.thread_cache_bytes, size_t(64) << 20);
    EXPECT_EQ(config.thread_cache_depth, 16u);
    EXPECT_TRUE(config.release_before_growth);
    EXPECT_FALSE(config.expandable_segments);
}

TEST(AllocatorConfig, ParsesEveryKey) {
    AllocatorConfig config =
        AllocatorConfig::parse("max_split_size_mb:256,thread_cache_mb:0,thread_cache_depth:4,release_before_growth:0");
    EXPECT_FALSE(config.release_before_growth);
    EXPECT_EQ(config.max_split_size, size_t(256) << 20);
    EXPECT_EQ(config.thread_cache_bytes, 0u);
    EXPECT_EQ(config.thread_cache_depth, 4u);
    for (const char *on : {"expandable_segments:true", "expandable_segments:True", "expandable_segments:1"}) {
        EXPECT_TRUE(AllocatorConfig::parse(on).expandable_segments) << on;
    }
    for (const char *off : {"expandable_segments:false", "expandable_segments:False", "expandable_segments:0"}) {
        EXPECT_FALSE(AllocatorConfig::parse(off).expandable_segments) << off;
    }
}

TEST(AllocatorConfig, RejectsUnknownKeysAndMalformedValues) {
    for (const char *text : {"no_such_key:1", "max_split_size_mb", "thread_cache_mb:-1", "thread_cache_mb:1x",
                             "max_split_size_mb:0", "thread_cache_depth:99999999999999999999999",
                             "release_before_growth:2", "expandable_segments:yes", "expandable_segments:"}) {
        try {
            AllocatorConfig::parse(text);
            ADD_FAILURE() << text << " was accepted";
        } catch (const Error &e) {
            EXPECT_EQ(e.status(), INFINI_STATUS_BAD_PARAM) << text;
            EXPECT_NE(e.detail().find(std::string(text).substr(0, 8)), std::string::npos) << e.what();
        }
    }
}

} // namespace
} // namespace infinicore::test
