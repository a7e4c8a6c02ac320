// Typed wrappers for libcurl's variadic and macro APIs, so Swift never calls a C variadic function.
#ifndef SLUICE_CCURL_SHIM_H
#define SLUICE_CCURL_SHIM_H

#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <curl/curl.h>
#include <openssl/ssl.h>
#include <openssl/pkcs12.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <stdlib.h>
#include <string.h>

/* Names the calling thread (at most 15 bytes show), so the engine thread is visible in tools.
   prctl, unlike pthread_setname_np, needs no _GNU_SOURCE, which would change glibc's fd_set
   and clash with other modules that include it. */
static inline void sluice_name_current_thread(const char *name) {
    prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

/* The kernel's id of the calling thread (its /proc/self/task/<id> entry). */
static inline int sluice_current_thread_id(void) {
    return (int)syscall(SYS_gettid);
}

/* An eventfd that wakes an engine's poll (non-blocking, closed on exec); -1 when none can be made. */
static inline int sluice_wake_fd_open(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

/* Wakes the poll waiting on `fd`: one 8-byte write, which never blocks (the counter saturates far away). */
static inline void sluice_wake_fd_signal(int fd) {
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;
}

/* curl_multi_poll on the multi handle's sockets and on `wake_fd`, which is drained when it woke the poll.
   Waking through an eventfd of one's own costs a submitting thread one 8-byte write; curl_multi_wakeup
   sends a byte over a socket pair, which allocates and queues a socket buffer each time. */
static inline CURLMcode sluice_multi_poll_waking(CURLM *multi, int wake_fd, int timeout_ms) {
    struct curl_waitfd extra = { .fd = wake_fd, .events = CURL_WAIT_POLLIN, .revents = 0 };
    CURLMcode code = curl_multi_poll(multi, &extra, 1, timeout_ms, NULL);
    if (extra.revents & CURL_WAIT_POLLIN) {
        uint64_t value;
        ssize_t got = read(wake_fd, &value, sizeof value);
        (void)got;
    }
    return code;
}

typedef size_t (*sluice_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);
typedef int (*sluice_curl_seek_callback)(void *context, curl_off_t offset, int origin);
typedef int (*sluice_curl_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *context,
                                           void *socket_context);
typedef int (*sluice_curl_prereq_callback)(void *context, char *primary_ip, char *local_ip, int primary_port,
                                           int local_port);
/* Receives one DER certificate; the bytes are valid during the call only. */
typedef void (*sluice_certificate_callback)(const unsigned char *der, int length, void *context);

// MARK: curl_easy_setopt

static inline CURLcode sluice_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode sluice_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode sluice_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode sluice_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode sluice_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}
static inline CURLcode sluice_easy_setopt_share(CURL *easy, CURLSH *share) {
    return curl_easy_setopt(easy, CURLOPT_SHARE, share);
}
static inline CURLcode sluice_easy_setopt_data_callback(CURL *easy, CURLoption option,
                                                        sluice_curl_data_callback callback) {
    return curl_easy_setopt(easy, option, callback);
}
static inline CURLcode sluice_easy_setopt_seek_callback(CURL *easy, sluice_curl_seek_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_SEEKFUNCTION, callback);
}
static inline CURLcode sluice_easy_setopt_prereq_callback(CURL *easy, sluice_curl_prereq_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_PREREQFUNCTION, callback);
}
static inline CURLcode sluice_easy_setopt_blob(CURL *easy, CURLoption option, void *data, size_t length) {
    struct curl_blob blob;
    blob.data = data;
    blob.len = length;
    blob.flags = CURL_BLOB_COPY;
    return curl_easy_setopt(easy, option, &blob);
}

// MARK: curl_easy_getinfo

static inline CURLcode sluice_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLcode sluice_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLcode sluice_easy_getinfo_double(CURL *easy, CURLINFO info, double *value) {
    return curl_easy_getinfo(easy, info, value);
}
static inline CURLcode sluice_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value) {
    char *result = NULL;
    CURLcode code = curl_easy_getinfo(easy, info, &result);
    *value = result;
    return code;
}
static inline CURLcode sluice_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value) {
    return curl_easy_getinfo(easy, info, value);
}

// MARK: the TLS session of a transfer's connection

/* Whether the server of the easy handle's current connection asked for a client certificate,
   naming the CAs it accepts (its CertificateRequest's certificate authorities): 1 yes, 0 no, -1 when
   the connection has no OpenSSL session. A server that asks without naming CAs reads as 0. */
static inline int sluice_tls_client_certificate_requested(CURL *easy) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(easy, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == NULL
        || info->backend != CURLSSLBACKEND_OPENSSL || info->internals == NULL) {
        return -1;
    }
    STACK_OF(X509_NAME) *names = SSL_get_client_CA_list((SSL *)info->internals);
    return names != NULL && sk_X509_NAME_num(names) > 0;
}

/* Hands `each` the certificates of the OpenSSL session behind the easy handle's current connection
   (new or reused), DER, leaf first: the chain OpenSSL verified, up to its trust anchor, when the
   verification succeeded; otherwise the chain the server sent. Returns 1 for a verified chain, 0 for
   a served one, -1 when the connection has no OpenSSL session. Call it from a callback of the
   transfer, such as CURLOPT_PREREQFUNCTION. */
static inline int sluice_tls_peer_certificates(CURL *easy, sluice_certificate_callback each, void *context) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(easy, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == NULL
        || info->backend != CURLSSLBACKEND_OPENSSL || info->internals == NULL) {
        return -1;
    }
    SSL *ssl = (SSL *)info->internals;
    int verified = SSL_get_verify_result(ssl) == X509_V_OK;
    STACK_OF(X509) *chain = verified ? SSL_get0_verified_chain(ssl) : SSL_get_peer_cert_chain(ssl);
    if (chain == NULL) {
        return -1;
    }
    for (int index = 0; index < sk_X509_num(chain); index++) {
        unsigned char *der = NULL;
        int length = i2d_X509(sk_X509_value(chain, index), &der);
        if (length > 0) {
            each(der, length, context);
            OPENSSL_free(der);
        }
    }
    return verified;
}

// MARK: curl_multi_setopt and curl_share_setopt

static inline CURLMcode sluice_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
static inline CURLMcode sluice_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
    return curl_multi_setopt(multi, option, value);
}
static inline CURLSHcode sluice_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}

// MARK: constants that Swift cannot import from macros

static const long SLUICE_CURL_HTTP_VERSION_1_1 = CURL_HTTP_VERSION_1_1;
static const long SLUICE_CURL_HTTP_VERSION_2TLS = CURL_HTTP_VERSION_2TLS;
static const long SLUICE_CURL_HTTP_VERSION_2_0 = CURL_HTTP_VERSION_2_0;
static const long SLUICE_CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE = CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE;
static const int SLUICE_CURL_READFUNC_ABORT = CURL_READFUNC_ABORT;
static const int SLUICE_CURL_READFUNC_PAUSE = CURL_READFUNC_PAUSE;
static const size_t SLUICE_CURL_WRITEFUNC_PAUSE = CURL_WRITEFUNC_PAUSE;
static const int SLUICE_CURLPAUSE_CONT = CURLPAUSE_CONT;
static const int SLUICE_CURLPAUSE_ALL = CURLPAUSE_ALL;
static const unsigned long SLUICE_CURLAUTH_BASIC = CURLAUTH_BASIC;
static const unsigned long SLUICE_CURLAUTH_DIGEST = CURLAUTH_DIGEST;
static const unsigned long SLUICE_CURLAUTH_ANY = CURLAUTH_ANY;
static const long SLUICE_CURL_GLOBAL_ALL = CURL_GLOBAL_ALL;
static const CURLversion SLUICE_CURLVERSION_NOW = CURLVERSION_NOW;
static const int SLUICE_CURL_PREREQFUNC_OK = CURL_PREREQFUNC_OK;
static const int SLUICE_CURL_PREREQFUNC_ABORT = CURL_PREREQFUNC_ABORT;

/* Gives free heap memory back to the system (glibc's malloc_trim(0): the free top of every arena and the
   whole free pages inside them); nothing elsewhere. After a burst of thousands of transfers the allocator
   otherwise keeps hundreds of MiB that nobody uses (docs/reliability.md, "Memory after a cancellation storm"). */
#if defined(__GLIBC__)
#include <malloc.h>
static inline void sluice_release_free_heap(void) { (void)malloc_trim(0); }
#else
static inline void sluice_release_free_heap(void) {}
#endif

// MARK: PKCS#12 client identities

/* Copies a memory BIO's bytes into a new malloc'd buffer (*out, *length); 0 on success. */
static inline int sluice_bio_copy(BIO *bio, char **out, size_t *length) {
    char *data = NULL;
    long count = BIO_get_mem_data(bio, &data);
    if (count <= 0 || data == NULL) return -1;
    *out = malloc((size_t)count);
    if (*out == NULL) return -1;
    memcpy(*out, data, (size_t)count);
    *length = (size_t)count;
    return 0;
}

/* Reads a PKCS#12 archive (DER, `length` bytes) with `passphrase` (NULL for none) and writes its
   certificate followed by its chain (PEM) and its private key (unencrypted PKCS#8 PEM) into new malloc'd
   buffers, which the caller frees (clearing the key's first). Returns 0 on success; 1 when the archive
   cannot be read or the passphrase is wrong; 2 when it holds no certificate or no key; 3 when out of
   memory. OpenSSL's error queue is left empty. */
static inline int sluice_pkcs12_to_pem(const unsigned char *der, long length, const char *passphrase,
                                       char **certificates, size_t *certificates_length,
                                       char **key, size_t *key_length) {
    *certificates = NULL;
    *key = NULL;
    const unsigned char *cursor = der;
    PKCS12 *archive = d2i_PKCS12(NULL, &cursor, length);
    if (archive == NULL) { ERR_clear_error(); return 1; }
    EVP_PKEY *private_key = NULL;
    X509 *certificate = NULL;
    STACK_OF(X509) *chain = NULL;
    int parsed = PKCS12_parse(archive, passphrase, &private_key, &certificate, &chain);
    PKCS12_free(archive);
    if (!parsed) { ERR_clear_error(); return 1; }
    int result = 0;
    BIO *certificate_bio = NULL, *key_bio = NULL;
    if (private_key == NULL || certificate == NULL) { result = 2; goto done; }
    certificate_bio = BIO_new(BIO_s_mem());
    key_bio = BIO_new(BIO_s_mem());
    if (certificate_bio == NULL || key_bio == NULL || !PEM_write_bio_X509(certificate_bio, certificate)) { result = 3; goto done; }
    for (int index = 0; chain != NULL && index < sk_X509_num(chain); index++) {
        if (!PEM_write_bio_X509(certificate_bio, sk_X509_value(chain, index))) { result = 3; goto done; }
    }
    if (!PEM_write_bio_PrivateKey(key_bio, private_key, NULL, NULL, 0, NULL, NULL)) { result = 3; goto done; }
    if (sluice_bio_copy(certificate_bio, certificates, certificates_length) != 0
        || sluice_bio_copy(key_bio, key, key_length) != 0) {
        free(*certificates);
        *certificates = NULL;
        result = 3;
    }
done:
    if (certificate_bio != NULL) BIO_free(certificate_bio);
    if (key_bio != NULL) BIO_free_all(key_bio);
    EVP_PKEY_free(private_key);
    X509_free(certificate);
    if (chain != NULL) sk_X509_pop_free(chain, X509_free);
    ERR_clear_error();
    return result;
}

#endif
