// What the Glibc overlay gives Swift and Embedded Swift lacks; compiled into
// the TocsinBase, Tocsin and TocsinDesktop modules of the Embedded build only
// (scripts/build-embedded.sh).
import Glibc

var errno: Int32 {
    get { tocsin_libc_errno() }
    set { tocsin_libc_set_errno(newValue) }
}

func open(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    tocsin_libc_open(path, flags, mode)
}
