#include "gzip.hpp"

#include <zlib.h>

#include "agpu/errors.hpp"

namespace agpu::validate::detail {

std::string gzip(const std::string& text) {
    z_stream z{};
    // windowBits 15 + 16: a gzip wrapper with a zero time and no name.
    AGPU_CHECK(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) == Z_OK,
               "zlib deflateInit2 failed");
    std::string out(deflateBound(&z, text.size()), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int r = deflate(&z, Z_FINISH);
    deflateEnd(&z);
    AGPU_CHECK(r == Z_STREAM_END, "zlib deflate did not finish in its bound");
    out.resize(z.total_out);
    return out;
}

std::string gunzip(const std::string& data, const std::string& where) {
    std::string out;
    z_stream z{};
    // windowBits 15 + 32: gzip or zlib, detected from the header.
    AGPU_CHECK(inflateInit2(&z, 15 + 32) == Z_OK, "zlib inflateInit2 failed");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    char buf[1 << 16];
    for (;;) {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        const int r = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
        if (r == Z_STREAM_END) {
            if (z.avail_in == 0) break;
            inflateReset(&z);  // another member follows
            continue;
        }
        if (r == Z_BUF_ERROR && z.avail_in == 0) {
            inflateEnd(&z);
            throw input_error(where, "the gzip data ends early (truncated file?)");
        }
        if (r != Z_OK) {
            const std::string msg = z.msg ? z.msg : "not gzip data";
            inflateEnd(&z);
            throw input_error(where, "cannot decompress: " + msg);
        }
    }
    inflateEnd(&z);
    return out;
}

}  // namespace agpu::validate::detail
