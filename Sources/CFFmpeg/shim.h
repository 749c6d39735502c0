// FFmpeg for Swift: the headers WayLoop uses, plus static-inline shims for what Swift cannot
// import (function-like macros and macro constants). Prefix: avx_.
#ifndef WAYLOOP_CFFMPEG_SHIM_H
#define WAYLOOP_CFFMPEG_SHIM_H

#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

// AVERROR_EOF and AVERROR(EAGAIN) are macros built from FFERRTAG / negation.
static inline int avx_error_eof(void) { return AVERROR_EOF; }
static inline int avx_error_eagain(void) { return AVERROR(EAGAIN); }
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
// SWS_BILINEAR is a macro.
static inline int avx_sws_bilinear(void) { return SWS_BILINEAR; }
// SWS_FULL_CHR_H_INT is a macro.
static inline int avx_sws_full_chroma(void) { return SWS_FULL_CHR_H_INT; }
// The log-level constants are macros.
static inline int avx_log_quiet(void) { return AV_LOG_QUIET; }

#endif
