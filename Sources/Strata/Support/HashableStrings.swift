import Foundation

/// Reads the `String` an `AnyHashable` wraps in place, without a dynamic cast.
///
/// Apple's `NSMutableDictionary` API takes keys as `AnyHashable`; a batch insert's dictionary
/// handler sets ten or more keys a row, nearly always Swift string literals. `key.base as? String`
/// copies the key out of its box into an `Any` and asks the runtime to cast it: 570 instructions
/// a key, more than SQLite spends on binding the value. An `AnyHashable` is one existential of
/// the standard library's box protocol (three words of inline buffer, the box's type, its witness
/// table); a `String` key's box holds the string at the start of that buffer. So a key whose box
/// type is the one a `String`'s `AnyHashable` has *is* a string, read with two loads.
///
/// The layout is not API: it is probed once, on `AnyHashable`s of a short and a long string, an
/// integer and an `NSString`, and the reader answers `nil` for every key (callers cast as
/// before) unless each probe reads back as expected. A key of any other type (`NSString`,
/// `Substring`, a number) has another box type and also gets `nil`.
struct HashableStrings {
    /// The type word of a `String` key's box; 0 when the layout is not the probed one.
    let stringBoxType: UInt

    /// The reader of this process's `AnyHashable`s, probed once.
    static let shared = HashableStrings()

    private init() {
        let word = MemoryLayout<UInt>.size
        guard MemoryLayout<AnyHashable>.size == 5 * word, MemoryLayout<String>.size == 2 * word else {
            stringBoxType = 0
            return
        }
        let short = "id"
        let long = String(repeating: "long key ", count: 4)
        let shortType = Self.boxType(of: AnyHashable(short))
        guard shortType != 0, shortType == Self.boxType(of: AnyHashable(long)),
            shortType != Self.boxType(of: AnyHashable(7)),
            shortType != Self.boxType(of: AnyHashable(NSString(string: short))),
            Self.words(of: AnyHashable(short)) == Self.words(of: short),
            Self.words(of: AnyHashable(long)) == Self.words(of: long)
        else {
            stringBoxType = 0
            return
        }
        stringBoxType = shortType
    }

    /// The string `key` wraps, if it wraps a Swift `String`; `nil` for keys of other types
    /// (and for every key if the probe failed).
    @inline(__always)
    func string(in key: AnyHashable) -> String? {
        guard stringBoxType != 0 else { return nil }
        return withUnsafeBytes(of: key) { bytes in
            bytes.load(fromByteOffset: 3 * MemoryLayout<UInt>.size, as: UInt.self) == stringBoxType
                ? bytes.load(as: String.self) : nil
        }
    }

    private static func boxType(of key: AnyHashable) -> UInt {
        withUnsafeBytes(of: key) { $0.load(fromByteOffset: 3 * MemoryLayout<UInt>.size, as: UInt.self) }
    }

    /// The first two words of a value's bytes: a string's own, or those a key's box holds
    /// first (compared as words, so that a probe of an unexpected layout loads no string).
    private static func words<Value>(of value: Value) -> [UInt] {
        withUnsafeBytes(of: value) { bytes in
            [bytes.load(as: UInt.self), bytes.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt.self)]
        }
    }
}
