import SluiceConformanceKit
import Testing

@testable import SluiceReachability

/// Hand-made rtnetlink messages, as the kernel lays them out.
enum Messages {
    static func link(
        index: Int32 = 2, hardwareType: UInt16 = 1, flags: UInt32 = 0x11043, name: String? = "eth0",
        kind: String? = nil, extra: [(UInt16, [UInt8])] = [], type: UInt16 = Netlink.MessageType.newLink,
        sequence: UInt32 = 0
    ) -> [UInt8] {
        var body = NetlinkEncoder()
        body.append(UInt8(0))
        body.append(UInt8(0))
        body.append(hardwareType)
        body.append(index)
        body.append(flags)
        body.append(UInt32(0xFFFF_FFFF))
        for (attributeType, payload) in extra { body.appendAttribute(type: attributeType, payload: payload) }
        if let name { body.appendAttribute(type: Netlink.LinkAttribute.name, payload: Array(name.utf8) + [0]) }
        if let kind {
            var info = NetlinkEncoder()
            info.appendAttribute(type: 99, payload: [1, 2, 3])  // an unknown nested attribute first
            info.appendAttribute(type: Netlink.LinkAttribute.infoKind, payload: Array(kind.utf8) + [0])
            body.appendAttribute(type: Netlink.LinkAttribute.linkInfo | 0x8000, payload: info.bytes)
        }
        body.appendAttribute(type: Netlink.LinkAttribute.operationalState, payload: [6])
        return NetlinkEncoder.message(type: type, flags: 0, sequence: sequence, body: body.bytes)
    }

    static func address(index: UInt32 = 2, bytes: [UInt8] = [10, 0, 0, 2], type: UInt16 = Netlink.MessageType.newAddress) -> [UInt8] {
        var body = NetlinkEncoder()
        body.append(bytes.count == 4 ? Netlink.Family.ipv4 : Netlink.Family.ipv6)
        body.append(UInt8(24))
        body.append(UInt8(0x80))
        body.append(UInt8(0))
        body.append(index)
        body.appendAttribute(type: Netlink.AddressAttribute.address, payload: bytes)
        body.appendAttribute(type: Netlink.AddressAttribute.local, payload: bytes)
        body.appendAttribute(type: Netlink.AddressAttribute.label, payload: Array("eth0".utf8) + [0])
        body.appendAttribute(type: 250, payload: [9, 9, 9, 9, 9])  // unknown
        return NetlinkEncoder.message(type: type, flags: 0, sequence: 0, body: body.bytes)
    }

    static func route(
        outputInterface: UInt32? = 2, routeType: UInt8 = Netlink.RouteType.unicast, destination: [UInt8]? = nil,
        gateway: [UInt8]? = [10, 0, 0, 1], type: UInt16 = Netlink.MessageType.newRoute, sequence: UInt32 = 0,
        portID: UInt32 = 0
    ) -> [UInt8] {
        var body = NetlinkEncoder()
        body.append(Netlink.Family.ipv4)
        body.append(UInt8(destination == nil ? 0 : 32))
        body.append(UInt8(0))
        body.append(UInt8(0))
        body.append(UInt8(254))
        body.append(UInt8(3))
        body.append(UInt8(0))
        body.append(routeType)
        body.append(UInt32(0))
        body.appendAttribute(type: Netlink.RouteAttribute.table, value: UInt32(254))
        if let destination { body.appendAttribute(type: Netlink.RouteAttribute.destination, payload: destination) }
        if let gateway { body.appendAttribute(type: Netlink.RouteAttribute.gateway, payload: gateway) }
        body.appendAttribute(type: 0x7ABC, payload: [])  // unknown, empty
        if let outputInterface { body.appendAttribute(type: Netlink.RouteAttribute.outputInterface, value: outputInterface) }
        return NetlinkEncoder.message(type: type, flags: 0, sequence: sequence, portID: portID, body: body.bytes)
    }

    static func error(_ code: Int32, sequence: UInt32 = 0) -> [UInt8] {
        var body = NetlinkEncoder()
        body.append(code)
        body.append(contentsOf: NetlinkEncoder.message(type: 26, flags: 1, sequence: sequence, body: []))
        return NetlinkEncoder.message(type: Netlink.MessageType.error, flags: 0, sequence: sequence, body: body.bytes)
    }

    static func done() -> [UInt8] {
        var body = NetlinkEncoder()
        body.append(Int32(0))
        return NetlinkEncoder.message(type: Netlink.MessageType.done, flags: Netlink.Flags.multipart, sequence: 0, body: body.bytes)
    }

    /// A datagram of several messages, each padded to 4 bytes.
    static func datagram(_ messages: [[UInt8]]) -> [UInt8] {
        var encoder = NetlinkEncoder()
        for message in messages {
            encoder.append(contentsOf: message)
            encoder.pad()
        }
        return encoder.bytes
    }

    /// `bytes` with the host-order 16-bit value at `offset` replaced.
    static func patch16(_ bytes: [UInt8], at offset: Int, _ value: UInt16) -> [UInt8] {
        var copy = bytes
        withUnsafeBytes(of: value) { for (index, byte) in $0.enumerated() { copy[offset + index] = byte } }
        return copy
    }

    /// `bytes` with the host-order 32-bit value at `offset` replaced.
    static func patch32(_ bytes: [UInt8], at offset: Int, _ value: UInt32) -> [UInt8] {
        var copy = bytes
        withUnsafeBytes(of: value) { for (index, byte) in $0.enumerated() { copy[offset + index] = byte } }
        return copy
    }
}

@Suite("Netlink parser")
struct NetlinkParserTests {
    @Test("a link message: index, type, flags, name, driver kind from the nested link info; unknown attributes skipped")
    func link() throws {
        let messages = NetlinkParser.messages(
            in: Messages.link(index: 7, flags: 0x11043, name: "veth0", kind: "veth", extra: [(200, [1, 2, 3, 4, 5, 6, 7])]))
        let message = try #require(messages.first)
        #expect(messages.count == 1)
        guard case .link(let link) = message.payload else {
            Issue.record("not a link: \(message.payload)")
            return
        }
        #expect(link.index == 7)
        #expect(link.hardwareType == 1)
        #expect(link.name == "veth0")
        #expect(link.kind == "veth")
        #expect(link.operationalState == 6)
        #expect(link.isUsable)
        #expect(!message.isDeletion)
        #expect(message.affectsReachability)
        let down = NetlinkParser.messages(in: Messages.link(flags: 0x1003, type: Netlink.MessageType.deleteLink))
        guard case .link(let downLink)? = down.first?.payload else {
            Issue.record("not a link")
            return
        }
        #expect(!downLink.isUsable, "up without IFF_RUNNING (no carrier) is not usable")
        #expect(down.first?.isDeletion == true)
    }

    @Test("address and route messages, IPv4 and IPv6")
    func addressAndRoute() throws {
        let ipv6: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [1]
        let messages = NetlinkParser.messages(
            in: Messages.datagram([
                Messages.address(index: 3, bytes: [192, 0, 2, 7]),
                Messages.address(index: 4, bytes: ipv6, type: Netlink.MessageType.deleteAddress),
                Messages.route(outputInterface: 3, destination: [203, 0, 113, 0], gateway: nil, sequence: 9, portID: 77),
            ]))
        #expect(messages.count == 3)
        guard messages.count == 3, case .address(let first) = messages[0].payload, case .address(let second) = messages[1].payload,
            case .route(let route) = messages[2].payload
        else {
            Issue.record("unexpected messages \(messages)")
            return
        }
        #expect(first.index == 3 && first.address == [192, 0, 2, 7] && first.local == [192, 0, 2, 7] && first.prefixLength == 24)
        #expect(second.family == Netlink.Family.ipv6 && second.address == ipv6 && messages[1].isDeletion)
        #expect(route.outputInterface == 3)
        #expect(route.tableID == 254)
        #expect(route.type == Netlink.RouteType.unicast)
        #expect(route.destination == [203, 0, 113, 0] && route.destinationLength == 32)
        #expect(route.gateway == nil)
        #expect(messages[2].header.sequence == 9 && messages[2].header.portID == 77)
    }

    @Test("errors, acknowledgements, end of dump and unknown message types")
    func control() {
        let messages = NetlinkParser.messages(
            in: Messages.datagram([
                Messages.error(-101), Messages.error(0), Messages.done(),
                NetlinkEncoder.message(type: 0x1234, flags: 0, sequence: 0, body: [1, 2, 3]),
                NetlinkEncoder.message(type: Netlink.MessageType.overrun, flags: 0, sequence: 0, body: []),
            ]))
        #expect(messages.map(\.payload) == [.error(-101), .error(0), .done, .other, .overrun])
        #expect(messages.map(\.affectsReachability) == [false, false, false, false, true])
    }

    @Test("a malformed message between good ones is dropped; the others are kept")
    func malformedInTheMiddle() {
        let good = Messages.link(index: 1)
        let tail = Messages.route(outputInterface: 5)
        // An attribute claiming 2 bytes (less than its own header).
        let badAttribute = Messages.patch16(Messages.link(index: 2), at: 16 + 16, 2)
        // A route whose RTA_OIF holds 2 bytes instead of 4.
        var shortOIF = NetlinkEncoder()
        shortOIF.append(contentsOf: [2, 32, 0, 0, 254, 3, 0, 1, 0, 0, 0, 0])
        shortOIF.appendAttribute(type: Netlink.RouteAttribute.outputInterface, payload: [1, 0])
        // A link body cut to 8 bytes.
        let shortBody = NetlinkEncoder.message(type: Netlink.MessageType.newLink, flags: 0, sequence: 0, body: [0, 0, 1, 0, 2, 0, 0, 0])
        // An error without its code.
        let shortError = NetlinkEncoder.message(type: Netlink.MessageType.error, flags: 0, sequence: 0, body: [1, 2])
        // Link info whose nested attribute runs past its parent.
        var badNested = NetlinkEncoder()
        badNested.append(UInt16(40))
        badNested.append(Netlink.LinkAttribute.infoKind)
        badNested.append(contentsOf: Array("veth".utf8))
        let nested = Messages.link(index: 3, name: nil, extra: [(Netlink.LinkAttribute.linkInfo, badNested.bytes)])
        let messages = NetlinkParser.messages(
            in: Messages.datagram([
                good, badAttribute, tail,
                NetlinkEncoder.message(type: Netlink.MessageType.newRoute, flags: 0, sequence: 0, body: shortOIF.bytes),
                shortBody, shortError, nested, good,
            ]))
        #expect(messages.count == 3)
        #expect(messages.map(\.payload) == NetlinkParser.messages(in: Messages.datagram([good, tail, good])).map(\.payload))
    }

    @Test("lying message lengths end parsing without reading past the datagram")
    func lyingLengths() {
        let good = Messages.link()
        #expect(NetlinkParser.messages(in: Messages.patch32(good, at: 0, 0)).isEmpty)
        #expect(NetlinkParser.messages(in: Messages.patch32(good, at: 0, 15)).isEmpty)
        #expect(NetlinkParser.messages(in: Messages.patch32(good, at: 0, UInt32(good.count + 1))).isEmpty)
        #expect(NetlinkParser.messages(in: Messages.patch32(good, at: 0, .max)).isEmpty)
        // The first message is fine; the second claims more than is left.
        let datagram = Messages.datagram([good, Messages.patch32(good, at: 0, 4096)])
        #expect(NetlinkParser.messages(in: datagram).count == 1)
        // A header alone (length 16) is a message with an empty body: a link needs 16 more bytes.
        #expect(NetlinkParser.messages(in: NetlinkEncoder.message(type: 16, flags: 0, sequence: 0, body: [])).isEmpty)
        #expect(NetlinkParser.messages(in: []).isEmpty)
        #expect(NetlinkParser.messages(in: [1, 2, 3]).isEmpty)
    }

    @Test("attribute lengths: zero, below 4, past the end, and missing final padding")
    func attributeLengths() {
        let reader = ByteReader([8, 0, 1, 0, 0xAA, 0xBB, 0xCC, 0xDD, 5, 0, 2, 0, 0xEE])
        let attributes = NetlinkParser.attributes(in: reader, range: 0..<reader.count)
        #expect(attributes == [.init(type: 1, isNested: false, payload: [0xAA, 0xBB, 0xCC, 0xDD]), .init(type: 2, isNested: false, payload: [0xEE])])
        for bad: [UInt8] in [[0, 0, 1, 0], [3, 0, 1, 0], [9, 0, 1, 0, 1, 2, 3, 4], [4, 0], [4]] {
            let badReader = ByteReader(bad)
            #expect(NetlinkParser.attributes(in: badReader, range: 0..<badReader.count) == nil, "\(bad)")
        }
        #expect(NetlinkParser.attributes(in: reader, range: 0..<100) == nil)
        let flagged = ByteReader([4, 0, 0x03, 0xC0])
        #expect(NetlinkParser.attributes(in: flagged, range: 0..<4) == [.init(type: 3, isNested: true, payload: [])])
    }

    @Test("names: stop at NUL, no NUL at all, invalid UTF-8")
    func names() {
        #expect(NetlinkParser.string([0x65, 0x74, 0x68, 0x30, 0, 0x78]) == "eth0")
        #expect(NetlinkParser.string([0x77, 0x6C]) == "wl")
        #expect(NetlinkParser.string([0xFF, 0xFE, 0]) == "\u{FFFD}\u{FFFD}")
        #expect(NetlinkParser.string([]) == "")
    }

    @Test("every truncation of a datagram keeps exactly the messages that arrived whole")
    func truncation() {
        let parts = [Messages.link(kind: "bridge"), Messages.address(), Messages.route(), Messages.error(-3), Messages.done()]
        let datagram = Messages.datagram(parts)
        let full = NetlinkParser.messages(in: datagram)
        #expect(full.count == parts.count)
        var ends: [Int] = []
        var offset = 0
        for part in parts {
            ends.append(offset + part.count)
            offset += Netlink.align(part.count)
        }
        for length in 0...datagram.count {
            let parsed = NetlinkParser.messages(in: Array(datagram.prefix(length)))
            let expected = ends.prefix { $0 <= length }.count
            #expect(parsed == Array(full.prefix(expected)), "cut at \(length)")
        }
    }

    @Test("5,000 random and mutated datagrams never crash the parser")
    func fuzz() {
        var random = SplitMix64(seed: 0x5EED_F00D)
        let seeds = [
            Messages.datagram([Messages.link(kind: "veth"), Messages.route(), Messages.address()]),
            Messages.route(destination: [1, 2, 3, 4]), Messages.error(-19), Messages.link(name: nil),
        ]
        var parsedMessages = 0
        for iteration in 0..<5_000 {
            var bytes: [UInt8]
            if iteration % 2 == 0 {
                let count = Int.random(in: 0...600, using: &random)
                bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
                // Make a plausible header more likely, so parsing goes past the first check.
                if count >= 16, Bool.random(using: &random) {
                    bytes = Messages.patch32(bytes, at: 0, UInt32.random(in: 0...UInt32(count + 8), using: &random))
                    bytes = Messages.patch16(bytes, at: 4, [16, 17, 20, 21, 24, 25, 2, 3].randomElement(using: &random)!)
                }
            } else {
                bytes = seeds.randomElement(using: &random)!
                for _ in 0..<Int.random(in: 1...8, using: &random) where !bytes.isEmpty {
                    let position = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0...3, using: &random) {
                    case 0: bytes[position] = UInt8.random(in: 0...255, using: &random)
                    case 1: bytes.removeLast(Int.random(in: 0...min(8, bytes.count), using: &random))
                    case 2: bytes[position] = [0, 1, 3, 4, 0xFF].randomElement(using: &random)!
                    default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: position)
                    }
                }
            }
            let messages = NetlinkParser.messages(in: bytes)
            parsedMessages += messages.count
            for message in messages {
                #expect(message.header.length >= 16 && Int(message.header.length) <= bytes.count)
            }
        }
        #expect(parsedMessages > 0, "mutated datagrams still hold some well-formed messages")
    }

    @Test("route lookup and link query requests carry what the kernel expects")
    func requests() throws {
        let lookup = NetlinkEncoder.routeLookup(to: try .init("fe80::1%1"), sequence: 42)
        let reader = ByteReader(lookup)
        let header = try #require(NetlinkParser.header(in: reader, at: 0))
        #expect(Int(header.length) == lookup.count)
        #expect(header.type == Netlink.MessageType.getRoute && header.flags == Netlink.Flags.request && header.sequence == 42)
        #expect(reader.uint8(at: 16) == Netlink.Family.ipv6 && reader.uint8(at: 17) == 128)
        let attributes = try #require(NetlinkParser.attributes(in: reader, range: 28..<lookup.count))
        #expect(attributes.first { $0.type == Netlink.RouteAttribute.destination }?.payload == [0xFE, 0x80] + Array(repeating: 0, count: 13) + [1])
        #expect(attributes.first { $0.type == Netlink.RouteAttribute.outputInterface }?.payload == [1, 0, 0, 0])
        let query = NetlinkEncoder.linkQuery(index: 9, sequence: 43)
        let queryReader = ByteReader(query)
        #expect(queryReader.uint16(at: 4) == Netlink.MessageType.getLink && queryReader.int32(at: 20) == 9)
        #expect(Int(queryReader.uint32(at: 0) ?? 0) == query.count)
    }
}
