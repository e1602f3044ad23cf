/* What a program built against the published InfiniCore infinicore.h / infinirt.h sees of the
 * device types and infinirtGetAllDeviceCount: the 11 published types, and the plain symbol. Used
 * only by count_published.c, to stand for such a binary. */
#ifndef PUBLISHED_INFINIRT_H
#define PUBLISHED_INFINIRT_H

typedef enum {
    INFINI_STATUS_SUCCESS = 0
} infiniStatus_t;

typedef enum {
    INFINI_DEVICE_CPU = 0,
    INFINI_DEVICE_NVIDIA = 1,
    INFINI_DEVICE_CAMBRICON = 2,
    INFINI_DEVICE_ASCEND = 3,
    INFINI_DEVICE_METAX = 4,
    INFINI_DEVICE_MOORE = 5,
    INFINI_DEVICE_ILUVATAR = 6,
    INFINI_DEVICE_KUNLUN = 7,
    INFINI_DEVICE_HYGON = 8,
    INFINI_DEVICE_QY = 9,
    INFINI_DEVICE_ALI = 10,
    INFINI_DEVICE_TYPE_COUNT
} infiniDevice_t;

infiniStatus_t infinirtGetAllDeviceCount(int *count_array);
infiniStatus_t infinirtGetDeviceCount(infiniDevice_t device, int *count);

#endif
