#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SluiceCore

/// An rtnetlink socket (`AF_NETLINK`, `SOCK_RAW`, `NETLINK_ROUTE`), close-on-exec.
///
/// Used by one thread at a time. Closed by ``close()`` or when released.
final class NetlinkSocket {
    /// What one receive produced.
    enum Received: Equatable {
        /// A whole datagram from the kernel.
        case datagram([UInt8])
        /// Nothing to read now (non-blocking), or the receive timeout passed.
        case nothingToRead
        /// The kernel dropped notifications because the socket's buffer was full (`ENOBUFS`).
        case overrun
        /// A datagram larger than the receive buffer; it was dropped.
        case truncated
        /// A datagram that did not come from the kernel; it was dropped.
        case foreign
        /// The receive failed with this `errno`.
        case failed(Int32)
    }

    /// The largest datagram read whole (64 KiB); the kernel's rtnetlink messages are far smaller.
    static let bufferSize = 64 * 1024

    /// The file descriptor, or -1 once closed.
    private(set) var descriptor: Int32
    /// The port the kernel assigned to this socket (`nl_pid`).
    private(set) var portID: UInt32 = 0
    private var buffer = [UInt8](repeating: 0, count: NetlinkSocket.bufferSize)

    /// Opens and binds a socket.
    ///
    /// - Parameters:
    ///   - groups: The `RTMGRP_*` multicast groups to receive notifications from; 0 for none.
    ///   - nonBlocking: Whether receives return ``Received/nothingToRead`` instead of waiting.
    ///   - receiveTimeoutMilliseconds: How long a blocking receive waits; 0 waits forever.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/reachabilityNetlinkUnavailable``.
    init(groups: UInt32, nonBlocking: Bool, receiveTimeoutMilliseconds: Int = 0) throws(SluiceError) {
        var type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        descriptor = socket(Netlink.addressFamily, type, Netlink.routeProtocol)
        guard descriptor >= 0 else {
            throw SystemError.make(.reachabilityNetlinkUnavailable, "cannot open an rtnetlink socket", errno: errno)
        }
        do throws(SluiceError) {
            try configure(groups: groups, receiveTimeoutMilliseconds: receiveTimeoutMilliseconds)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private func configure(groups: UInt32, receiveTimeoutMilliseconds: Int) throws(SluiceError) {
        if groups != 0 {
            // Room for bursts of notifications; the kernel caps it at net.core.rmem_max.
            var size: Int32 = 1 << 20
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if receiveTimeoutMilliseconds > 0 {
            var timeout = timeval(
                tv_sec: receiveTimeoutMilliseconds / 1000, tv_usec: (receiveTimeoutMilliseconds % 1000) * 1000)
            guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0
            else {
                throw SystemError.make(.reachabilityNetlinkUnavailable, "cannot set the rtnetlink receive timeout", errno: errno)
            }
        }
        var address = Self.socketAddress(portID: 0, groups: groups)
        let bound = address.withUnsafeMutableBytes { raw in
            bind(descriptor, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        guard bound == 0 else {
            throw SystemError.make(.reachabilityNetlinkUnavailable, "cannot bind the rtnetlink socket", errno: errno)
        }
        var length = socklen_t(address.count)
        let named = address.withUnsafeMutableBytes { raw in
            getsockname(descriptor, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        if named == 0, let port = ByteReader(address).uint32(at: 4) { portID = port }
    }

    /// `struct sockaddr_nl` as bytes: family, padding, port, groups.
    static func socketAddress(portID: UInt32, groups: UInt32) -> [UInt8] {
        var encoder = NetlinkEncoder()
        encoder.append(UInt16(Netlink.addressFamily))
        encoder.append(UInt16(0))
        encoder.append(portID)
        encoder.append(groups)
        return encoder.bytes
    }

    /// The socket's inode number, as `/proc/self/fd` shows it (`socket:[inode]`); 0 once closed.
    var inode: UInt64 {
        guard descriptor >= 0 else { return 0 }
        var status = stat()
        return fstat(descriptor, &status) == 0 ? UInt64(status.st_ino) : 0
    }

    /// Sends `message` to the kernel.
    ///
    /// - Returns: `nil` when sent, else the `errno`.
    func send(_ message: [UInt8]) -> Int32? {
        guard descriptor >= 0 else { return EBADF }
        var kernel = Self.socketAddress(portID: 0, groups: 0)
        while true {
            let sent = message.withUnsafeBytes { bytes in
                kernel.withUnsafeMutableBytes { raw in
                    sendto(
                        descriptor, bytes.baseAddress, bytes.count, 0,
                        raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
                }
            }
            if sent == message.count { return nil }
            if sent < 0, errno == EINTR { continue }
            return sent < 0 ? errno : EMSGSIZE
        }
    }

    /// Receives one datagram.
    func receive() -> Received {
        guard descriptor >= 0 else { return .failed(EBADF) }
        var sender = Self.socketAddress(portID: 0, groups: 0)
        while true {
            var senderLength = socklen_t(sender.count)
            let count = buffer.withUnsafeMutableBytes { bytes in
                sender.withUnsafeMutableBytes { raw in
                    recvfrom(
                        descriptor, bytes.baseAddress, bytes.count, Int32(MSG_TRUNC),
                        raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &senderLength)
                }
            }
            if count < 0 {
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return .nothingToRead
                case ENOBUFS: return .overrun
                case let number: return .failed(number)
                }
            }
            if count > buffer.count { return .truncated }
            // Only the kernel (port 0) speaks for the network; anything else is ignored.
            guard ByteReader(sender).uint32(at: 4) == 0 else { return .foreign }
            return .datagram(Array(buffer[0..<count]))
        }
    }

    /// Closes the descriptor; later calls do nothing.
    func close() {
        guard descriptor >= 0 else { return }
        closeDescriptor(descriptor)
        descriptor = -1
    }
}

/// `close(2)`, reachable from types that have a `close()` method of their own.
func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
