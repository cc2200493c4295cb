// Compile-time proof that each function here has the signature
// include/tocsin_notify.h declares (see Sources/TocsinC/SignatureCheck.swift).
import CTocsinNotify

private func sameSignature<Function>(_ declared: Function, _ defined: Function) {}

private func checkSignatures() {
    sameSignature(CTocsinNotify.tocsin_notify_new, TocsinNotifyC.tocsin_notify_new)
    sameSignature(CTocsinNotify.tocsin_notify_free, TocsinNotifyC.tocsin_notify_free)
    sameSignature(CTocsinNotify.tocsin_notify_set_callback, TocsinNotifyC.tocsin_notify_set_callback)
    sameSignature(CTocsinNotify.tocsin_notify_attach, TocsinNotifyC.tocsin_notify_attach)
    sameSignature(CTocsinNotify.tocsin_notify_detach, TocsinNotifyC.tocsin_notify_detach)
    sameSignature(CTocsinNotify.tocsin_notify_forget_engine, TocsinNotifyC.tocsin_notify_forget_engine)
    sameSignature(CTocsinNotify.tocsin_notify_stop, TocsinNotifyC.tocsin_notify_stop)
    sameSignature(CTocsinNotify.tocsin_notify_set_live_limit, TocsinNotifyC.tocsin_notify_set_live_limit)
    sameSignature(CTocsinNotify.tocsin_notify_show, TocsinNotifyC.tocsin_notify_show)
    sameSignature(CTocsinNotify.tocsin_notify_flush, TocsinNotifyC.tocsin_notify_flush)
    sameSignature(CTocsinNotify.tocsin_notify_diagnose, TocsinNotifyC.tocsin_notify_diagnose)
}
