import Foundation

/// The object graph of an `NSKeyedArchiver` archive: a binary property list whose `$objects`
/// array holds every archived object, tied together by UID references, with `$top` naming
/// the root.
///
/// Only what Core Data's compiled models use is interpreted: dictionaries of keys to values,
/// Foundation's collections and strings in their archived forms, numbers and dates. Every
/// lookup tolerates absent keys and wrong types by answering `nil`, so that a damaged archive
/// gives a typed error where it is used, never a crash.
struct KeyedArchive {
    let objects: [PropertyListValue]
    let root: PropertyListValue

    init(_ data: Data) throws(PropertyListFormatError) {
        let top = try BinaryPropertyList.read(data)
        guard top["$archiver"] == .string("NSKeyedArchiver"), case .array(let objects)? = top["$objects"],
            let root = top["$top"]?["root"]
        else { throw PropertyListFormatError(reason: "not an NSKeyedArchiver archive") }
        self.objects = objects
        self.root = root
    }

    /// The object a value stands for: a UID resolved, `$null` as `nil`.
    func resolve(_ value: PropertyListValue?) -> PropertyListValue? {
        guard let value else { return nil }
        if case .uid(let index) = value {
            guard objects.indices.contains(index) else { return nil }
            let object = objects[index]
            return object == .string("$null") ? nil : object
        }
        return value
    }

    /// The archived object's class name (`$classname` of its `$class`).
    func className(of value: PropertyListValue?) -> String? {
        guard let object = resolve(value), case .string(let name)? = resolve(object["$class"])?["$classname"] else {
            return nil
        }
        return name
    }

    /// The archived object's value for a key, resolved.
    func field(_ value: PropertyListValue?, _ key: String) -> PropertyListValue? {
        resolve(resolve(value)?[key])
    }

    /// A string: a plain one, or an archived `NSString`/`NSMutableString`.
    func string(_ value: PropertyListValue?) -> String? {
        switch resolve(value) {
        case .string(let text)?: return text
        case let object?:
            if case .string(let text)? = object["NS.string"] { return text }
            if case .data(let bytes)? = object["NS.bytes"] { return String(decoding: bytes, as: UTF8.self) }
            return nil
        case nil: return nil
        }
    }

    func integer(_ value: PropertyListValue?) -> Int? {
        switch resolve(value) {
        case .integer(let number)?: return Int(exactly: number)
        case .bool(let flag)?: return flag ? 1 : 0
        case .real(let number)?: return Int(exactly: number)
        default: return nil
        }
    }

    func bool(_ value: PropertyListValue?) -> Bool? {
        switch resolve(value) {
        case .bool(let flag)?: return flag
        case .integer(let number)?: return number != 0
        default: return nil
        }
    }

    /// The elements of an archived array, set or ordered set (unresolved: they may be UIDs).
    func elements(_ value: PropertyListValue?) -> [PropertyListValue]? {
        guard let object = resolve(value) else { return nil }
        switch object {
        case .array(let items), .set(let items): return items
        default:
            guard case .array(let items)? = object["NS.objects"] else { return nil }
            return items
        }
    }

    /// The entries of an archived dictionary, in archive order (keys and values unresolved).
    /// Besides `NSDictionary`'s form, reads `NSKnownKeysDictionary1`, Core Data's dictionary
    /// whose keys live in a shared mapping and whose empty slots hold a marker string.
    func entries(_ value: PropertyListValue?) -> [(key: PropertyListValue, value: PropertyListValue)]? {
        guard let object = resolve(value) else { return nil }
        if case .array(let keys)? = object["NS.keys"], case .array(let values)? = object["NS.objects"],
            keys.count == values.count
        {
            return Array(zip(keys, values)).map { (key: $0.0, value: $0.1) }
        }
        if let mapping = field(object, "searchMapping"), let keys = elements(field(mapping, "keys")),
            let values = elements(field(object, "values")), keys.count == values.count
        {
            let empty = string(object["emptyToken"])
            return zip(keys, values).compactMap { key, value in
                if let empty, string(value) == empty { return nil }
                return (key: key, value: value)
            }
        }
        return nil
    }

    /// A plain value as Foundation gives it: numbers, strings, dates, data, UUIDs, URLs and
    /// collections of them; `nil` for what is no such value (an archived object of an app's
    /// own class, say).
    func plainValue(_ value: PropertyListValue?) -> Any? {
        guard let object = resolve(value) else { return nil }
        switch object {
        case .bool(let flag): return NSNumber(value: flag)
        case .integer(let number): return NSNumber(value: number)
        case .real(let number): return NSNumber(value: number)
        case .date(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .data(let bytes): return bytes
        case .string(let text): return text
        case .null, .uid: return nil
        case .array(let items), .set(let items): return items.compactMap { plainValue($0) }
        case .dictionary:
            switch className(of: object) {
            case "NSDate":
                guard case .real(let seconds)? = object["NS.time"] else { return nil }
                return Date(timeIntervalSinceReferenceDate: seconds)
            case "NSUUID":
                guard case .data(let bytes)? = object["NS.uuidbytes"], bytes.count == 16 else { return nil }
                let b = Array(bytes)
                return UUID(
                    uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
            case "NSURL":
                guard let relative = string(object["NS.relative"]) else { return nil }
                return URL(string: relative, relativeTo: (plainValue(object["NS.base"]) as? URL))
            case "NSString", "NSMutableString": return string(object)
            case "NSData", "NSMutableData":
                guard case .data(let bytes)? = object["NS.data"] else { return nil }
                return bytes
            case "NSDecimalNumber":
                return decimal(object)
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
                return elements(object)?.compactMap { plainValue($0) }
            case "NSDictionary", "NSMutableDictionary":
                var result: [AnyHashable: Any] = [:]
                for (key, item) in entries(object) ?? [] {
                    if let key = plainValue(key) as? AnyHashable, let item = plainValue(item) { result[key] = item }
                }
                return result
            default: return nil
            }
        }
    }

    /// An archived `NSDecimalNumber`: a little-endian mantissa of 16-bit words, an exponent and
    /// a sign.
    private func decimal(_ object: PropertyListValue) -> NSDecimalNumber? {
        guard case .data(let mantissa)? = object["NS.mantissa"], let exponent = integer(object["NS.exponent"]),
            let length = integer(object["NS.length"]), length >= 0, length * 2 <= mantissa.count, length <= 8
        else { return nil }
        var significand = Decimal(0)
        for word in stride(from: length - 1, through: 0, by: -1) {
            let low = Decimal(Int(mantissa[mantissa.startIndex + 2 * word]))
            let high = Decimal(Int(mantissa[mantissa.startIndex + 2 * word + 1]))
            significand = significand * 65_536 + high * 256 + low
        }
        let negative = bool(object["NS.negative"]) ?? false
        let value = Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: significand)
        return NSDecimalNumber(decimal: value)
    }
}
