// A kind's handles fill its region (infinirt/handles.h): under INFINIRT_MAX_HANDLES=8192
// (CMakeLists.txt), over the cpu plugin, events are made until creation is refused. The region
// is made writable a chunk of 4096 slots at a time, so the handles span two chunks; slot 0 is
// never handed out. Other kinds are unaffected, and a destroyed handle's slot is taken again.
#include "status_assertions.h"

#include <string>
#include <vector>

namespace {

constexpr size_t kCapacity = 8192;

TEST(HandleCapacity, AFullKindRefusesAndTakesAFreedSlotAgain) {
    ASSERT_OK(infinirtSetDevice(INFINI_DEVICE_CPU, 0));
    std::vector<infinirtEvent_t> events;
    infinirt_test::Outcome refused{INFINI_STATUS_SUCCESS, ""};
    while (events.size() <= kCapacity) {
        infinirtEvent_t e = nullptr;
        refused = infinirt_test::Capture(infinirtEventCreate(&e));
        if (refused.status != INFINI_STATUS_SUCCESS) {
            break;
        }
        events.push_back(e);
    }
    EXPECT_EQ(refused.status, INFINI_STATUS_OUT_OF_MEMORY);
    EXPECT_NE(refused.message.find("infinirtEventCreate: no room for another handle"), std::string::npos)
        << refused.message;
    EXPECT_EQ(events.size(), kCapacity - 1) << "every slot but slot 0";

    // A stream is another kind: its own region. The last event (second chunk) and the first work.
    infinirtStream_t stream = nullptr;
    ASSERT_OK(infinirtStreamCreate(&stream));
    for (infinirtEvent_t e : {events.front(), events.back()}) {
        ASSERT_OK(infinirtEventRecord(e, stream));
        ASSERT_OK(infinirtEventSynchronize(e));
        infinirtEventStatus_t status = INFINIRT_EVENT_NOT_READY;
        ASSERT_OK(infinirtEventQuery(e, &status));
        EXPECT_EQ(status, INFINIRT_EVENT_COMPLETE);
    }

    // A destroyed handle frees its slot: the next create takes it, and the old value stays dead.
    infinirtEvent_t freed = events[5000];
    ASSERT_OK(infinirtEventDestroy(freed));
    infinirtEvent_t again = nullptr;
    ASSERT_OK(infinirtEventCreate(&again));
    EXPECT_NE(again, freed);
    EXPECT_STATUS(INFINI_STATUS_INVALID_HANDLE, infinirtEventRecord(freed, stream));
    events[5000] = again;
    infinirtEvent_t none = nullptr;
    EXPECT_STATUS(INFINI_STATUS_OUT_OF_MEMORY, infinirtEventCreate(&none));

    for (infinirtEvent_t e : events) {
        ASSERT_OK(infinirtEventDestroy(e));
    }
    ASSERT_OK(infinirtStreamDestroy(stream));
}

} // namespace
