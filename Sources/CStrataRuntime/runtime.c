// Most of the target's functions are inline, in its header.
#define _GNU_SOURCE
#include "CStrataRuntime.h"

__thread void *const *strata_tls_first_pointer;

void *const *strata_tls_find_first_pointer(unsigned long module) {
    strata_tls_index index = {module, 0};
    void *const *pointer = __tls_get_addr(&index);
    strata_tls_first_pointer = pointer;
    return pointer;
}

#if defined(__linux__)
#include <elf.h>
#include <link.h>
#include <string.h>

struct strata_tls_search {
    const char *name;
    unsigned long size;
    unsigned long module;
};

static int strata_tls_visit(struct dl_phdr_info *info, size_t infoSize, void *data) {
    (void)infoSize;
    struct strata_tls_search *search = data;
    const char *path = info->dlpi_name;
    if (path == NULL || info->dlpi_tls_modid == 0) return 0;
    const char *slash = strrchr(path, '/');
    const char *file = slash ? slash + 1 : path;
    if (strcmp(file, search->name) != 0) return 0;
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type == PT_TLS && header->p_memsz >= search->size) {
            search->module = info->dlpi_tls_modid;
            return 1;
        }
    }
    return 0;
}

unsigned long strata_tls_module(const char *name, unsigned long size) {
    struct strata_tls_search search = {name, size, 0};
    dl_iterate_phdr(strata_tls_visit, &search);
    return search.module;
}
#else
unsigned long strata_tls_module(const char *name, unsigned long size) {
    (void)name;
    (void)size;
    return 0;
}
#endif
