import SluiceCore

/// Asks the kernel, over an rtnetlink socket of its own, which route a destination takes and what
/// state an interface is in.
///
/// Route lookups are answered from the routing tables (policy rules included); no packet is sent.
/// Used by one thread at a time.
final class RouteQuerier {
    /// The answer to a route lookup.
    enum RouteAnswer: Equatable {
        /// The route the kernel would use.
        case route(NetlinkMessage.Route)
        /// No route: the kernel answered with this `errno` (`ENETUNREACH`, `EHOSTUNREACH`, ...).
        case noRoute(Int32)
        /// The kernel did not answer in time, or the socket failed.
        case failed
    }

    /// The answer to a link query.
    enum LinkAnswer: Equatable {
        /// The link's state.
        case link(NetlinkMessage.Link)
        /// No such interface (it went away).
        case missing
        /// The kernel did not answer in time, or the socket failed.
        case failed
    }

    /// How long one question waits for its answer (2 s).
    static let answerTimeoutMilliseconds = 2000

    private let socket: NetlinkSocket
    private var sequence: UInt32 = 0

    /// Opens the socket.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/reachabilityNetlinkUnavailable``.
    init() throws(SluiceError) {
        socket = try NetlinkSocket(groups: 0, nonBlocking: false, receiveTimeoutMilliseconds: Self.answerTimeoutMilliseconds)
    }

    /// The socket's inode, 0 once closed.
    var inode: UInt64 { socket.inode }

    /// Closes the socket.
    func close() { socket.close() }

    /// The route to `destination`.
    func route(to destination: NetworkReachabilityManager.SocketAddress) -> RouteAnswer {
        switch ask({ NetlinkEncoder.routeLookup(to: destination, sequence: $0) }) {
        case .route(let route)?: .route(route)
        case .error(let code)? where code < 0: .noRoute(-code)
        default: .failed
        }
    }

    /// The state of the interface with `index`.
    func link(index: Int32) -> LinkAnswer {
        switch ask({ NetlinkEncoder.linkQuery(index: index, sequence: $0) }) {
        case .link(let link)?: .link(link)
        case .error(let code)? where code < 0: .missing
        default: .failed
        }
    }

    /// Sends the request `build` makes for a fresh sequence number and returns the first answer
    /// carrying that number; `nil` when none arrives in time.
    private func ask(_ build: (UInt32) -> [UInt8]) -> NetlinkMessage.Payload? {
        sequence &+= 1
        if sequence == 0 { sequence = 1 }
        let expected = sequence
        guard socket.send(build(expected)) == nil else { return nil }
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Self.answerTimeoutMilliseconds))
        while ContinuousClock.now < deadline {
            switch socket.receive() {
            case .datagram(let datagram):
                // Answers to earlier questions that timed out are skipped.
                if let answer = NetlinkParser.messages(in: datagram).first(where: {
                    $0.header.sequence == expected && (socket.portID == 0 || $0.header.portID == socket.portID)
                }) {
                    return answer.payload
                }
            case .truncated, .foreign, .overrun:
                continue
            case .nothingToRead, .failed:
                return nil
            }
        }
        return nil
    }
}
