// FFmpeg for Swift: the headers WayLoop uses, plus static-inline shims for what Swift cannot
// import (function-like macros and macro constants). Prefix: avx_.
#ifndef WAYLOOP_CFFMPEG_SHIM_H
#define WAYLOOP_CFFMPEG_SHIM_H

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

// AVERROR_EOF and AVERROR(EAGAIN) are macros built from FFERRTAG / negation.
static inline int avx_error_eof(void) { return AVERROR_EOF; }
static inline int avx_error_eagain(void) { return AVERROR(EAGAIN); }
static inline int avx_error_einval(void) { return AVERROR(EINVAL); }
// AV_CODEC_PROP_INTRA_ONLY: every frame stands alone (MJPEG): lowres may change at any frame.
static inline int avx_codec_prop_intra_only(void) { return AV_CODEC_PROP_INTRA_ONLY; }
// AV_NOPTS_VALUE is a macro cast of INT64_MIN.
static inline int64_t avx_nopts(void) { return AV_NOPTS_VALUE; }
// AVFrame.duration replaced pkt_duration in libavutil 57.30 (FFmpeg 6.0).
static inline int64_t avx_frame_duration(const AVFrame *f) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(57, 30, 100)
    return f->duration;
#else
    return f->pkt_duration;
#endif
}
// Bytes held by a frame's buffers (AVFrame.buf is a fixed array Swift sees as a tuple).
static inline size_t avx_frame_bytes(const AVFrame *f) {
    size_t n = 0;
    for (int i = 0; i < AV_NUM_DATA_POINTERS; i++) if (f->buf[i]) n += f->buf[i]->size;
    for (int i = 0; i < f->nb_extended_buf; i++) n += f->extended_buf[i]->size;
    return n;
}
// AVSEEK_FLAG_BACKWARD is a macro.
static inline int avx_seek_backward(void) { return AVSEEK_FLAG_BACKWARD; }
// The scaler's flags: macros up to FFmpeg 7, constants of enum SwsFlags from FFmpeg 8 on.
static inline int avx_sws_bilinear(void) { return SWS_BILINEAR; }
// SWS_BICUBIC: fitted copies, the sharper downscale, made once.
static inline int avx_sws_bicubic(void) { return SWS_BICUBIC; }
static inline int avx_sws_full_chroma(void) { return SWS_FULL_CHR_H_INT; }
static inline int avx_sws_point(void) { return SWS_POINT; }

// libswscale's context, as one Swift type whatever the FFmpeg: SwsContext is an incomplete type up
// to FFmpeg 7 (Swift sees OpaquePointer) and a public struct from FFmpeg 8 on (Swift sees
// UnsafeMutablePointer<SwsContext>). WayLoop holds it as avx_sws and calls it through these.
typedef void *avx_sws;
static inline avx_sws avx_sws_get_context(int sw, int sh, enum AVPixelFormat sf, int dw, int dh, enum AVPixelFormat df, int flags) {
    return sws_getContext(sw, sh, sf, dw, dh, df, flags, NULL, NULL, NULL);
}
static inline avx_sws avx_sws_get_cached_context(avx_sws c, int sw, int sh, enum AVPixelFormat sf, int dw, int dh,
                                                 enum AVPixelFormat df, int flags) {
    return sws_getCachedContext((struct SwsContext *)c, sw, sh, sf, dw, dh, df, flags, NULL, NULL, NULL);
}
static inline void avx_sws_free(avx_sws c) { sws_freeContext((struct SwsContext *)c); }
static inline int avx_sws_scale(avx_sws c, const uint8_t *const src[], const int src_stride[], int y, int h,
                                uint8_t *const dst[], const int dst_stride[]) {
    return sws_scale((struct SwsContext *)c, src, src_stride, y, h, dst, dst_stride);
}
static inline int avx_sws_scale_frame(avx_sws c, AVFrame *dst, const AVFrame *src) {
    return sws_scale_frame((struct SwsContext *)c, dst, src);
}
static inline int avx_sws_set_colorspace_details(avx_sws c, const int inv_table[4], int src_range, const int table[4],
                                                 int dst_range, int brightness, int contrast, int saturation) {
    return sws_setColorspaceDetails((struct SwsContext *)c, inv_table, src_range, table, dst_range, brightness, contrast, saturation);
}

// A stream's side data (the display matrix): on the stream up to FFmpeg 6.0, in its codec
// parameters from libavcodec 60.30 (FFmpeg 6.1; av_stream_get_side_data is gone in FFmpeg 8).
// NULL (and *size 0) when it has none.
static inline const uint8_t *avx_stream_side_data(const AVStream *st, enum AVPacketSideDataType type, size_t *size) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 30, 100)
    const AVPacketSideData *sd = av_packet_side_data_get(st->codecpar->coded_side_data, st->codecpar->nb_coded_side_data, type);
    *size = sd ? sd->size : 0;
    return sd ? sd->data : NULL;
#else
    return av_stream_get_side_data(st, type, size);
#endif
}
// New side data of `size` bytes on a stream being written (NULL: out of memory).
static inline uint8_t *avx_stream_new_side_data(AVStream *st, enum AVPacketSideDataType type, size_t size) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 30, 100)
    AVPacketSideData *sd = av_packet_side_data_new(&st->codecpar->coded_side_data, &st->codecpar->nb_coded_side_data, type, size, 0);
    return sd ? sd->data : NULL;
#else
    return av_stream_new_side_data(st, type, size);
#endif
}
// The log-level constants are macros.
static inline int avx_log_quiet(void) { return AV_LOG_QUIET; }

// Hardware decoding. The pixel format `codec` decodes into on a device of `type`
// through a device context (AV_PIX_FMT_NONE: it cannot).
static inline enum AVPixelFormat avx_hw_format(const AVCodec *codec, enum AVHWDeviceType type) {
    for (int i = 0;; i++) {
        const AVCodecHWConfig *c = avcodec_get_hw_config(codec, i);
        if (!c) return AV_PIX_FMT_NONE;
        if ((c->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) && c->device_type == type) return c->pix_fmt;
    }
}
// A pixel format that lives on a device (AV_PIX_FMT_FLAG_HWACCEL is a macro).
static inline int avx_pix_fmt_is_hw(enum AVPixelFormat f) {
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && (d->flags & AV_PIX_FMT_FLAG_HWACCEL);
}
// Bits per sample and 4:2:0-ness of a software pixel format (0 / -1 when unknown).
static inline int avx_pix_fmt_depth(enum AVPixelFormat f) {
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && d->nb_components > 0 ? d->comp[0].depth : 0;
}
static inline int avx_pix_fmt_is_420(enum AVPixelFormat f) {
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    if (!d) return -1;
    return d->nb_components >= 3 && d->log2_chroma_w == 1 && d->log2_chroma_h == 1 && !(d->flags & AV_PIX_FMT_FLAG_RGB);
}
// The vendor string of a VA-API device's driver, to skip emulated ones. AVVAAPIDeviceContext's
// first field is its VADisplay; vaQueryVendorString is found in libva, which libavutil loaded
// (no libva headers or link needed). NULL when it cannot say.
static inline const char *avx_vaapi_vendor(AVBufferRef *device) {
    if (!device) return NULL;
    AVHWDeviceContext *d = (AVHWDeviceContext *)device->data;
    if (!d || d->type != AV_HWDEVICE_TYPE_VAAPI || !d->hwctx) return NULL;
    void *display = *(void **)d->hwctx;
    const char *(*query)(void *) = (const char *(*)(void *))dlsym(RTLD_DEFAULT, "vaQueryVendorString");
    return query && display ? query(display) : NULL;
}
// The software format a hardware frame copies back into (the first its frames context
// offers: NV12, P010); AV_PIX_FMT_NONE when it cannot say.
static inline enum AVPixelFormat avx_hw_download_format(const AVFrame *hw) {
    enum AVPixelFormat *formats = NULL;
    if (!hw->hw_frames_ctx || av_hwframe_transfer_get_formats(hw->hw_frames_ctx, AV_HWFRAME_TRANSFER_DIRECTION_FROM, &formats, 0) < 0 || !formats)
        return AV_PIX_FMT_NONE;
    enum AVPixelFormat f = formats[0];
    av_free(formats);
    return f;
}
// Gives `f` (empty) one buffer from `pool` laid out as `fmt` at w x h (rows 64-byte aligned).
static inline int avx_frame_from_pool(AVFrame *f, AVBufferPool *pool, enum AVPixelFormat fmt, int w, int h) {
    AVBufferRef *b = av_buffer_pool_get(pool);
    if (!b) return AVERROR(ENOMEM);
    f->buf[0] = b;
    f->format = fmt;
    f->width = w;
    f->height = h;
    int r = av_image_fill_arrays(f->data, f->linesize, b->data, fmt, w, h, 64);
    return r < 0 ? r : 0;
}
// The name of CUDA device `index` ("NVIDIA H200"), from the libcuda FFmpeg loaded (0: unknown).
static inline int avx_cuda_device_name(int index, char *buf, int len) {
    void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!cuda) return 0;
    int (*get)(int *, int) = (int (*)(int *, int))dlsym(cuda, "cuDeviceGet");
    int (*name)(char *, int, int) = (int (*)(char *, int, int))dlsym(cuda, "cuDeviceGetName");
    int dev = 0, ok = get && name && get(&dev, index) == 0 && name(buf, len, dev) == 0;
    dlclose(cuda);
    return ok;
}


#endif
