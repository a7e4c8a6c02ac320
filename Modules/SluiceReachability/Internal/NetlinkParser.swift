/// Decodes rtnetlink datagrams defensively.
///
/// Every length the kernel sends is checked against the bytes actually received before it is used:
///
/// - A message header shorter than 16 bytes, or one whose `nlmsg_len` is below 16 or runs past the
///   datagram, ends parsing: the lengths after it cannot be trusted, so the rest of the datagram is
///   dropped.
/// - A message whose fixed body (`ifinfomsg`, `ifaddrmsg`, `rtmsg`, `nlmsgerr`) is cut short, or whose
///   attributes have a length below 4 or past the message's end, is dropped; the messages around it
///   are kept.
/// - Attributes of types not listed in ``NetlinkMessage`` are skipped; message types not read here
///   become ``NetlinkMessage/Payload/other``.
enum NetlinkParser {
    /// `sizeof(struct ifinfomsg)`.
    static let linkBodySize = 16
    /// `sizeof(struct ifaddrmsg)`.
    static let addressBodySize = 8
    /// `sizeof(struct rtmsg)`.
    static let routeBodySize = 12

    /// The well-formed messages of `datagram`, in order; malformed ones are left out.
    static func messages(in datagram: [UInt8]) -> [NetlinkMessage] {
        let reader = ByteReader(datagram)
        var messages: [NetlinkMessage] = []
        var offset = 0
        while reader.contains(offset: offset, length: Netlink.headerSize) {
            guard let header = header(in: reader, at: offset) else { break }
            let length = Int(header.length)
            guard length >= Netlink.headerSize, reader.contains(offset: offset, length: length) else { break }
            if let payload = payload(of: header, in: reader, body: (offset + Netlink.headerSize)..<(offset + length)) {
                messages.append(NetlinkMessage(header: header, payload: payload))
            }
            offset += Netlink.align(length)
        }
        return messages
    }

    /// The header at `offset`, or `nil` when fewer than 16 bytes remain.
    static func header(in reader: ByteReader, at offset: Int) -> NetlinkMessage.Header? {
        guard let length = reader.uint32(at: offset), let type = reader.uint16(at: offset + 4),
            let flags = reader.uint16(at: offset + 6), let sequence = reader.uint32(at: offset + 8),
            let portID = reader.uint32(at: offset + 12)
        else { return nil }
        return NetlinkMessage.Header(length: length, type: type, flags: flags, sequence: sequence, portID: portID)
    }

    /// The attributes in `range` of `reader`, or `nil` when one of them is malformed.
    ///
    /// An attribute is malformed when its `rta_len` is below 4 or runs past the range. Padding after
    /// the last attribute may be missing.
    static func attributes(in reader: ByteReader, range: Range<Int>) -> [NetlinkMessage.Attribute]? {
        guard range.lowerBound >= 0, range.upperBound <= reader.count else { return nil }
        var attributes: [NetlinkMessage.Attribute] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            guard range.upperBound - offset >= 4, let length16 = reader.uint16(at: offset),
                let rawType = reader.uint16(at: offset + 2)
            else { return nil }
            let length = Int(length16)
            guard length >= 4, length <= range.upperBound - offset,
                let payload = reader.bytes(at: offset + 4, length: length - 4)
            else { return nil }
            attributes.append(
                NetlinkMessage.Attribute(
                    type: rawType & ~Netlink.attributeFlagMask, isNested: rawType & 0x8000 != 0, payload: payload))
            offset += Netlink.align(length)
        }
        return attributes
    }

    /// The body of a message, or `nil` when it is malformed.
    private static func payload(
        of header: NetlinkMessage.Header, in reader: ByteReader, body: Range<Int>
    ) -> NetlinkMessage.Payload? {
        switch header.type {
        case Netlink.MessageType.newLink, Netlink.MessageType.deleteLink:
            return link(in: reader, body: body).map { .link($0) }
        case Netlink.MessageType.newAddress, Netlink.MessageType.deleteAddress:
            return address(in: reader, body: body).map { .address($0) }
        case Netlink.MessageType.newRoute, Netlink.MessageType.deleteRoute:
            return route(in: reader, body: body).map { .route($0) }
        case Netlink.MessageType.error:
            // `struct nlmsgerr`: the error, then (usually) the request's header.
            guard body.count >= 4, let code = reader.int32(at: body.lowerBound) else { return nil }
            return .error(code)
        case Netlink.MessageType.done:
            return .done
        case Netlink.MessageType.overrun:
            return .overrun
        default:
            return .other
        }
    }

    /// `struct ifinfomsg` and its attributes.
    static func link(in reader: ByteReader, body: Range<Int>) -> NetlinkMessage.Link? {
        let base = body.lowerBound
        guard body.count >= linkBodySize, let family = reader.uint8(at: base),
            let hardwareType = reader.uint16(at: base + 2), let index = reader.int32(at: base + 4),
            let flags = reader.uint32(at: base + 8), let change = reader.uint32(at: base + 12),
            let attributes = Self.attributes(in: reader, range: (base + linkBodySize)..<body.upperBound)
        else { return nil }
        var link = NetlinkMessage.Link(
            family: family, hardwareType: hardwareType, index: index, flags: flags, change: change)
        for attribute in attributes {
            switch attribute.type {
            case Netlink.LinkAttribute.name:
                link.name = string(attribute.payload)
            case Netlink.LinkAttribute.operationalState:
                link.operationalState = attribute.payload.first
            case Netlink.LinkAttribute.linkInfo:
                let nestedReader = ByteReader(attribute.payload)
                guard let nested = Self.attributes(in: nestedReader, range: 0..<nestedReader.count) else { return nil }
                if let kind = nested.first(where: { $0.type == Netlink.LinkAttribute.infoKind }) {
                    link.kind = string(kind.payload)
                }
            default:
                continue
            }
        }
        return link
    }

    /// `struct ifaddrmsg` and its attributes.
    static func address(in reader: ByteReader, body: Range<Int>) -> NetlinkMessage.Address? {
        let base = body.lowerBound
        guard body.count >= addressBodySize, let family = reader.uint8(at: base),
            let prefixLength = reader.uint8(at: base + 1), let flags = reader.uint8(at: base + 2),
            let scope = reader.uint8(at: base + 3), let index = reader.uint32(at: base + 4),
            let attributes = Self.attributes(in: reader, range: (base + addressBodySize)..<body.upperBound)
        else { return nil }
        var address = NetlinkMessage.Address(
            family: family, prefixLength: prefixLength, flags: flags, scope: scope, index: index)
        for attribute in attributes {
            switch attribute.type {
            case Netlink.AddressAttribute.address: address.address = attribute.payload
            case Netlink.AddressAttribute.local: address.local = attribute.payload
            default: continue
            }
        }
        return address
    }

    /// `struct rtmsg` and its attributes.
    static func route(in reader: ByteReader, body: Range<Int>) -> NetlinkMessage.Route? {
        let base = body.lowerBound
        guard body.count >= routeBodySize, let family = reader.uint8(at: base),
            let destinationLength = reader.uint8(at: base + 1), let sourceLength = reader.uint8(at: base + 2),
            let typeOfService = reader.uint8(at: base + 3), let table = reader.uint8(at: base + 4),
            let routingProtocol = reader.uint8(at: base + 5), let scope = reader.uint8(at: base + 6),
            let type = reader.uint8(at: base + 7), let flags = reader.uint32(at: base + 8),
            let attributes = Self.attributes(in: reader, range: (base + routeBodySize)..<body.upperBound)
        else { return nil }
        var route = NetlinkMessage.Route(
            family: family, destinationLength: destinationLength, sourceLength: sourceLength,
            typeOfService: typeOfService, table: table, routingProtocol: routingProtocol, scope: scope, type: type,
            flags: flags)
        for attribute in attributes {
            switch attribute.type {
            case Netlink.RouteAttribute.destination:
                route.destination = attribute.payload
            case Netlink.RouteAttribute.gateway:
                route.gateway = attribute.payload
            case Netlink.RouteAttribute.outputInterface:
                guard attribute.payload.count == 4 else { return nil }
                route.outputInterface = ByteReader(attribute.payload).uint32(at: 0)
            case Netlink.RouteAttribute.table:
                guard attribute.payload.count == 4 else { return nil }
                route.tableID = ByteReader(attribute.payload).uint32(at: 0)
            default:
                continue
            }
        }
        return route
    }

    /// A C string attribute: the bytes before the first NUL, as UTF-8 (invalid sequences replaced).
    static func string(_ payload: [UInt8]) -> String {
        String(decoding: payload.prefix { $0 != 0 }, as: UTF8.self)
    }
}
