import Foundation

/// A value of a binary property list (`bplist00`), as keyed archives hold them.
///
/// Foundation's `PropertyListSerialization` reads and writes binary property lists, but the
/// `UID` values that tie a keyed archive's objects together have no public type on any
/// platform (Apple's is the private `__NSCFKeyedArchiverUID`), so a keyed archive written by
/// another program cannot be walked with it. Strata reads and writes the format itself; it is
/// small and documented in Apple's open-source `CFBinaryPList.c` comments.
indirect enum PropertyListValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// Seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
    case data(Data)
    case string(String)
    /// A reference to an object of a keyed archive's `$objects`.
    case uid(Int)
    case array([PropertyListValue])
    case set([PropertyListValue])
    /// Keyed archives only use string keys; a dictionary with any other key is refused on reading.
    case dictionary([String: PropertyListValue])

    /// The dictionary's value for a key, when this is a dictionary.
    subscript(key: String) -> PropertyListValue? {
        if case .dictionary(let entries) = self { return entries[key] }
        return nil
    }
}

/// Why a binary property list could not be read.
struct PropertyListFormatError: Error, Equatable, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// Reads and writes binary property lists (`bplist00`).
enum BinaryPropertyList {
    /// The bytes every binary property list starts with.
    static let magic = Data("bplist00".utf8)

    /// The deepest nesting read; deeper lists are refused rather than risk the stack.
    static let maximumDepth = 512

    /// Reads the list's top object. Every offset and count is checked against the data, shared
    /// objects are read once, and an object that contains itself is refused: a list from a
    /// file can make none of these run away.
    static func read(_ data: Data) throws(PropertyListFormatError) -> PropertyListValue {
        var reader = try Reader(Array(data))
        return try reader.object(reader.topObject, depth: 0)
    }

    private struct Reader {
        let bytes: [UInt8]
        let offsetSize: Int
        let referenceSize: Int
        let offsets: [Int]
        let topObject: Int
        var decoded: [Int: PropertyListValue] = [:]
        var reading: Set<Int> = []

        init(_ bytes: [UInt8]) throws(PropertyListFormatError) {
            self.bytes = bytes
            guard bytes.count >= 40, bytes.starts(with: Array(BinaryPropertyList.magic)) else {
                throw PropertyListFormatError(reason: "not a binary property list")
            }
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            let count = Self.unsigned(bytes, at: trailer + 8, size: 8)
            let top = Self.unsigned(bytes, at: trailer + 16, size: 8)
            let tableStart = Self.unsigned(bytes, at: trailer + 24, size: 8)
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), let tableStart, let count, let top,
                count > 0, top < count, tableStart >= 8, tableStart <= trailer, count <= (trailer - tableStart) / offsetSize
            else { throw PropertyListFormatError(reason: "the trailer of the binary property list is damaged") }
            var offsets: [Int] = []
            offsets.reserveCapacity(count)
            for index in 0..<count {
                guard let offset = Self.unsigned(bytes, at: tableStart + index * offsetSize, size: offsetSize),
                    offset >= 8, offset < tableStart
                else { throw PropertyListFormatError(reason: "object \(index) lies outside the property list") }
                offsets.append(offset)
            }
            self.offsets = offsets
            topObject = top
        }

        /// A big-endian unsigned integer of `size` bytes, or `nil` when it does not fit an `Int`
        /// or the bytes are not there.
        static func unsigned(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
            guard offset >= 0, size <= 8, offset + size <= bytes.count else { return nil }
            var value: UInt64 = 0
            for index in offset..<offset + size { value = value << 8 | UInt64(bytes[index]) }
            return Int(exactly: value)
        }

        private func need(_ offset: Int, _ length: Int) throws(PropertyListFormatError) {
            guard length >= 0, offset + length <= bytes.count - 32 else {
                throw PropertyListFormatError(reason: "a value runs past the end of the property list")
            }
        }

        /// The count after a marker: in its low nibble, or in the integer object that follows.
        private func count(at offset: Int, marker: UInt8) throws(PropertyListFormatError) -> (Int, Int) {
            let low = Int(marker & 0x0F)
            guard low == 0x0F else { return (low, offset + 1) }
            try need(offset + 1, 1)
            let intMarker = bytes[offset + 1]
            guard intMarker & 0xF0 == 0x10 else { throw PropertyListFormatError(reason: "a count is not an integer") }
            let size = 1 << Int(intMarker & 0x0F)
            try need(offset + 2, size)
            guard size <= 8, let value = Self.unsigned(bytes, at: offset + 2, size: size) else {
                throw PropertyListFormatError(reason: "a count is too large")
            }
            return (value, offset + 2 + size)
        }

        private func references(at start: Int, count: Int) throws(PropertyListFormatError) -> [Int] {
            guard count <= (bytes.count - start) / referenceSize else {
                throw PropertyListFormatError(reason: "a collection runs past the end of the property list")
            }
            try need(start, count * referenceSize)
            var result: [Int] = []
            result.reserveCapacity(count)
            for index in 0..<count {
                guard let reference = Self.unsigned(bytes, at: start + index * referenceSize, size: referenceSize),
                    reference < offsets.count
                else { throw PropertyListFormatError(reason: "a reference points to no object") }
                result.append(reference)
            }
            return result
        }

        mutating func object(_ index: Int, depth: Int) throws(PropertyListFormatError) -> PropertyListValue {
            if let known = decoded[index] { return known }
            guard depth < BinaryPropertyList.maximumDepth else {
                throw PropertyListFormatError(reason: "the property list nests too deeply")
            }
            guard reading.insert(index).inserted else {
                throw PropertyListFormatError(reason: "object \(index) contains itself")
            }
            defer { reading.remove(index) }
            let value = try parse(offsets[index], depth: depth)
            decoded[index] = value
            return value
        }

        private mutating func parse(_ offset: Int, depth: Int) throws(PropertyListFormatError) -> PropertyListValue {
            try need(offset, 1)
            let marker = bytes[offset]
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x00: return .null
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: throw PropertyListFormatError(reason: "unknown marker \(marker)")
                }
            case 0x1:
                let size = 1 << Int(marker & 0x0F)
                try need(offset + 1, size)
                guard size <= 16 else { throw PropertyListFormatError(reason: "an integer is too large") }
                // 16-byte integers keep their value in the low 8 bytes; 8-byte ones are signed.
                let start = size == 16 ? offset + 9 : offset + 1
                var raw: UInt64 = 0
                for byte in bytes[start..<start + min(size, 8)] { raw = raw << 8 | UInt64(byte) }
                return .integer(Int64(bitPattern: raw))
            case 0x2, 0x3:
                let size = marker == 0x33 ? 8 : 1 << Int(marker & 0x0F)
                guard size == 4 || size == 8 else { throw PropertyListFormatError(reason: "a real has \(size) bytes") }
                try need(offset + 1, size)
                var raw: UInt64 = 0
                for byte in bytes[offset + 1..<offset + 1 + size] { raw = raw << 8 | UInt64(byte) }
                let value = size == 4 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw)
                return marker == 0x33 ? .date(value) : .real(value)
            case 0x4:
                let (length, start) = try count(at: offset, marker: marker)
                try need(start, length)
                return .data(Data(bytes[start..<start + length]))
            case 0x5:
                let (length, start) = try count(at: offset, marker: marker)
                try need(start, length)
                // ASCII, or Latin-1 as CoreFoundation writes one-byte strings.
                return .string(String(decoding: bytes[start..<start + length].map { UInt16($0) }, as: UTF16.self))
            case 0x6:
                let (length, start) = try count(at: offset, marker: marker)
                guard length <= bytes.count / 2 else { throw PropertyListFormatError(reason: "a string is too long") }
                try need(start, length * 2)
                var units: [UInt16] = []
                units.reserveCapacity(length)
                for index in 0..<length {
                    units.append(UInt16(bytes[start + 2 * index]) << 8 | UInt16(bytes[start + 2 * index + 1]))
                }
                return .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                let size = Int(marker & 0x0F) + 1
                try need(offset + 1, size)
                guard let value = Self.unsigned(bytes, at: offset + 1, size: size) else {
                    throw PropertyListFormatError(reason: "a UID is too large")
                }
                return .uid(value)
            case 0xA, 0xC:
                let (length, start) = try count(at: offset, marker: marker)
                var elements: [PropertyListValue] = []
                for reference in try references(at: start, count: length) {
                    elements.append(try object(reference, depth: depth + 1))
                }
                return marker >> 4 == 0xA ? .array(elements) : .set(elements)
            case 0xD:
                let (length, start) = try count(at: offset, marker: marker)
                let keys = try references(at: start, count: length)
                let values = try references(at: start + length * referenceSize, count: length)
                var entries: [String: PropertyListValue] = [:]
                for (key, value) in zip(keys, values) {
                    guard case .string(let name) = try object(key, depth: depth + 1) else {
                        throw PropertyListFormatError(reason: "a dictionary key is not a string")
                    }
                    entries[name] = try object(value, depth: depth + 1)
                }
                return .dictionary(entries)
            default:
                throw PropertyListFormatError(reason: "unknown marker \(marker)")
            }
        }
    }

    // MARK: Writing

    /// Writes the value as a binary property list. Equal strings are written once; dictionary
    /// keys are written in sorted order, so equal values give equal bytes.
    static func write(_ value: PropertyListValue) -> Data {
        var writer = Writer()
        let top = writer.add(value)
        return writer.finish(top: top)
    }

    private struct Writer {
        /// Each object's encoding, its references still as object numbers.
        var objects: [(head: [UInt8], references: [Int])] = []
        var strings: [String: Int] = [:]

        mutating func add(_ value: PropertyListValue) -> Int {
            if case .string(let text) = value, let known = strings[text] { return known }
            let index = objects.count
            objects.append(([], []))
            var head: [UInt8]
            var references: [Int] = []
            switch value {
            case .null: head = [0x00]
            case .bool(let flag): head = [flag ? 0x09 : 0x08]
            case .integer(let number):
                if number >= 0 && number <= 0xFF {
                    head = [0x10, UInt8(number)]
                } else if number >= 0 && number <= 0xFFFF {
                    head = [0x11] + Self.bigEndian(UInt64(number), size: 2)
                } else if number >= 0 && number <= 0xFFFF_FFFF {
                    head = [0x12] + Self.bigEndian(UInt64(number), size: 4)
                } else {
                    head = [0x13] + Self.bigEndian(UInt64(bitPattern: number), size: 8)
                }
            case .real(let number): head = [0x23] + Self.bigEndian(number.bitPattern, size: 8)
            case .date(let seconds): head = [0x33] + Self.bigEndian(seconds.bitPattern, size: 8)
            case .data(let bytes): head = Self.marker(0x4, count: bytes.count) + Array(bytes)
            case .string(let text):
                strings[text] = index
                if text.utf8.allSatisfy({ $0 < 0x80 }) {
                    head = Self.marker(0x5, count: text.utf8.count) + Array(text.utf8)
                } else {
                    let units = Array(text.utf16)
                    head = Self.marker(0x6, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
                }
            case .uid(let number):
                let size = number <= 0xFF ? 1 : number <= 0xFFFF ? 2 : number <= 0xFFFF_FFFF ? 4 : 8
                head = [0x80 | UInt8(size - 1)] + Self.bigEndian(UInt64(number), size: size)
            case .array(let elements), .set(let elements):
                let isArray = if case .array = value { true } else { false }
                head = Self.marker(isArray ? 0xA : 0xC, count: elements.count)
                references = elements.map { add($0) }
            case .dictionary(let entries):
                let keys = entries.keys.sorted()
                head = Self.marker(0xD, count: keys.count)
                references = keys.map { add(.string($0)) }
                for key in keys {
                    if let element = entries[key] { references.append(add(element)) }
                }
            }
            objects[index] = (head, references)
            return index
        }

        static func marker(_ kind: UInt8, count: Int) -> [UInt8] {
            if count < 15 { return [kind << 4 | UInt8(count)] }
            let size = count <= 0xFF ? 1 : count <= 0xFFFF ? 2 : count <= 0xFFFF_FFFF ? 4 : 8
            let exponent: UInt8 = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3
            return [kind << 4 | 0x0F, 0x10 | exponent] + bigEndian(UInt64(count), size: size)
        }

        static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
        }

        static func size(for value: Int) -> Int {
            value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
        }

        func finish(top: Int) -> Data {
            let referenceSize = Self.size(for: objects.count)
            var bytes = Array(BinaryPropertyList.magic)
            var offsets: [Int] = []
            offsets.reserveCapacity(objects.count)
            for object in objects {
                offsets.append(bytes.count)
                bytes += object.head
                for reference in object.references {
                    bytes += Self.bigEndian(UInt64(reference), size: referenceSize)
                }
            }
            let tableStart = bytes.count
            let offsetSize = Self.size(for: tableStart)
            for offset in offsets { bytes += Self.bigEndian(UInt64(offset), size: offsetSize) }
            bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
            bytes += Self.bigEndian(UInt64(objects.count), size: 8)
            bytes += Self.bigEndian(UInt64(top), size: 8)
            bytes += Self.bigEndian(UInt64(tableStart), size: 8)
            return Data(bytes)
        }
    }
}
