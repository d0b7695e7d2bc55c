import Foundation

/// The values of one object or row, by layout position (`EntityLayout`): what objects hold,
/// what snapshots share and what saves pass to stores.
///
/// Reads and writes give and take `Any?`, as an array of optional values would; a row stores
/// them by the type its entity's attributes store (`ValueShape`): numbers, Booleans and dates
/// in eight bytes, strings in sixteen, to-one destinations (objects or IDs) as one reference,
/// with one byte a position saying whether there is a value. A position keeps any other value, and a value of another type than its attribute's
/// (an `NSNumber` set through key-value coding, `NSNull`), as it was given, beside the typed
/// ones: a value reads back with the type it was stored with. An `[Any?]` took 32 bytes a
/// value, was allocated through the runtime's generic metadata lookup, and copied and
/// destroyed every value through its type's witnesses.
///
/// A value type: copies share their storage until one of them changes.
@usableFromInline
struct ValueRow {
    @usableFromInline var storage: ValueStorage

    /// A row of `nil`s in `shape`.
    init(shape: ValueShape) {
        storage = ValueStorage.make(shape: shape)
    }

    /// A row of `values` in `shape` when they fill it, else in a shape that holds any value
    /// at every position.
    init(_ values: [Any?], shape: ValueShape? = nil) {
        let shape = shape.flatMap { $0.count == values.count ? $0 : nil } ?? ValueShape(untyped: values.count)
        storage = ValueStorage.make(shape: shape)
        for (index, value) in values.enumerated() { storage.setValue(value, at: index) }
    }

    /// A row of `count` `nil`s that can hold any value at every position.
    init(untypedCount count: Int) {
        self.init(shape: ValueShape(untyped: count))
    }

    init(storage: ValueStorage) {
        self.storage = storage
    }

    /// The row of no values (a fault's, a deleted row's), shared.
    static let empty = ValueRow(untypedCount: 0)

    var shape: ValueShape { storage.shape }

    /// Makes the storage this row's own before a change.
    @inline(__always)
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// The value at `index` when it is `nil` (`.some(nil)`) or of exactly type `Value`
    /// (`.some(value)`), read in place; `nil` when the caller must cast.
    @inlinable @inline(__always)
    func exactValue<Value>(at index: Int, as type: Value.Type) -> Value?? {
        storage.exactValue(at: index, as: type)
    }

    /// The reference at a to-one position, read without boxing it in an `Any`: `.some(nil)`
    /// for none; `nil` when the position holds no reference (another kind, or a value kept
    /// aside), which the caller reads by subscript.
    func objectReference(at index: Int) -> AnyObject?? {
        storage.objectReference(at: index)
    }

    /// Writes a to-one destination (an object or an object ID) or `nil`.
    mutating func setObject(_ object: AnyObject?, at index: Int) {
        makeUnique()
        storage.setObject(object, at: index)
    }

    /// Writes a value of the row's own type for `index` in place, or, for values of other types,
    /// as `subscript` does.
    @inline(__always)
    mutating func set<Value>(_ value: Value, at index: Int) {
        makeUnique()
        storage.set(value, at: index)
    }

    /// Writes a value given as `Any`, in place when it is of the position's type, without
    /// wrapping it in an optional first; otherwise as `subscript` does.
    @inline(__always)
    mutating func setPresent(_ value: Any, at index: Int) {
        makeUnique()
        storage.setPresent(value, at: index)
    }
}

// Copies share their storage only to read it; a change first makes the storage the row's own.
extension ValueRow: @unchecked Sendable {}

extension ValueRow: RandomAccessCollection, MutableCollection {
    @usableFromInline typealias Indices = Range<Int>

    @usableFromInline var startIndex: Int { 0 }
    @usableFromInline var endIndex: Int { storage.count }
    @usableFromInline var indices: Range<Int> { 0..<storage.count }

    @usableFromInline
    subscript(index: Int) -> Any? {
        get { storage.value(at: index) }
        set {
            makeUnique()
            storage.setValue(newValue, at: index)
        }
    }
}

/// How a row of an entity stores its values: a kind and a byte offset for each position.
///
/// The positions are described in a table of plain words that the shape allocates once and
/// rows point to (`ShapeTable`), so that reading a position's description retains nothing.
@usableFromInline
final class ValueShape: @unchecked Sendable {
    /// How one position stores its value.
    @usableFromInline
    enum Kind: UInt8, Sendable {
        /// An `Any?`: to-many relationships, and attributes of the types the other kinds do not
        /// cover.
        case any
        case int16, int32, int64, double, float, bool, date
        case string
        /// An `AnyObject?`, for to-one relationships (an object, or an object ID in snapshots).
        case object

        /// The bytes of the position (its value buffer).
        var size: Int {
            switch self {
            case .any: MemoryLayout<Any?>.size
            case .string: MemoryLayout<String>.size
            case .object: MemoryLayout<AnyObject?>.size
            default: 8
            }
        }

        /// The Swift type a typed position holds.
        var type: Any.Type? {
            switch self {
            case .any, .object: nil
            case .int16: Int16.self
            case .int32: Int32.self
            case .int64: Int64.self
            case .double: Double.self
            case .float: Float.self
            case .bool: Bool.self
            case .date: Date.self
            case .string: String.self
            }
        }

        /// The kind that stores values of `type`, `.any` for other types.
        init(storedType type: Any.Type?) {
            let typed: [Kind] = [.int16, .int32, .int64, .double, .float, .bool, .date, .string]
            self = typed.first { kind in type.map { $0 == kind.type } ?? false } ?? .any
        }
    }

    let kinds: [Kind]
    @usableFromInline let table: ShapeTable
    /// The positions whose bytes hold references (`.any`, `.string` and `.object`), which copies
    /// retain and destruction releases.
    let referencePositions: [Int]
    var count: Int { table.count }

    /// A shape of the given kinds.
    init(kinds: [Kind]) {
        self.kinds = kinds
        var offsets: [Int] = []
        offsets.reserveCapacity(kinds.count)
        var offset = 0
        for kind in kinds {
            offsets.append(offset)
            offset += kind.size
        }
        table = ShapeTable(
            kinds: kinds, offsets: offsets, typeWords: kinds.map { $0.type.map(PlainValues.metadata) ?? 0 },
            tagOffset: offset, wordCount: max(1, (offset + kinds.count + 7) / 8))
        referencePositions = kinds.indices.filter { kinds[$0] == .any || kinds[$0] == .string || kinds[$0] == .object }
    }

    /// Whether position `index` stores values of `type` in place (typed).
    @inline(__always)
    func holdsInPlace<Value>(_ type: Value.Type, at index: Int) -> Bool {
        table.slot(index).holdsInPlace(Value.self)
    }

    /// A shape whose every position holds any value.
    convenience init(untyped count: Int) {
        self.init(kinds: Array(repeating: .any, count: count))
    }

    deinit { table.deallocate() }
}

/// A shape's description of its positions, in memory the shape owns: the position count, where
/// the tag bytes begin and the storage's size in words, then a `ShapeSlot` for each position.
@usableFromInline
struct ShapeTable {
    @usableFromInline let base: UnsafeMutableRawPointer
    /// The bytes before the slots: three words.
    @usableFromInline static var headerSize: Int { 3 * MemoryLayout<Int>.stride }

    init(kinds: [ValueShape.Kind], offsets: [Int], typeWords: [UInt], tagOffset: Int, wordCount: Int) {
        let size = Self.headerSize + MemoryLayout<ShapeSlot>.stride * kinds.count
        base = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<Int>.alignment)
        base.initializeMemory(as: Int.self, repeating: 0, count: 3)
        base.storeBytes(of: kinds.count, as: Int.self)
        base.storeBytes(of: tagOffset, toByteOffset: MemoryLayout<Int>.stride, as: Int.self)
        base.storeBytes(of: wordCount, toByteOffset: 2 * MemoryLayout<Int>.stride, as: Int.self)
        let slots = (base + Self.headerSize).bindMemory(to: ShapeSlot.self, capacity: kinds.count)
        for index in kinds.indices {
            (slots + index).initialize(
                to: ShapeSlot(typeWord: typeWords[index], offset: UInt32(offsets[index]), kind: kinds[index]))
        }
    }

    func deallocate() { base.deallocate() }

    @inlinable var count: Int { base.load(as: Int.self) }
    @inlinable var tagOffset: Int { base.load(fromByteOffset: MemoryLayout<Int>.stride, as: Int.self) }
    @inlinable var wordCount: Int { base.load(fromByteOffset: 2 * MemoryLayout<Int>.stride, as: Int.self) }

    /// The description of position `index`, which must be one of the shape's.
    @inlinable @inline(__always)
    func slot(_ index: Int) -> ShapeSlot {
        precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "position out of range")
        return (base + Self.headerSize).assumingMemoryBound(to: ShapeSlot.self)[index]
    }

    @inlinable @inline(__always)
    func offset(_ index: Int) -> Int { Int(slot(index).offset) }
    @inlinable @inline(__always)
    func kind(_ index: Int) -> ValueShape.Kind { slot(index).kind }
}

/// One position of a shape: its value's type word (its Swift type's metadata, 0 for `.any`),
/// its byte offset and its kind.
@usableFromInline
struct ShapeSlot {
    @usableFromInline let typeWord: UInt
    @usableFromInline let offset: UInt32
    @usableFromInline let kind: ValueShape.Kind

    init(typeWord: UInt, offset: UInt32, kind: ValueShape.Kind) {
        self.typeWord = typeWord
        self.offset = offset
        self.kind = kind
    }

    /// Whether the position stores values of `type` in place (a typed position of that type).
    @inline(__always)
    func holdsInPlace<Value>(_ type: Value.Type) -> Bool {
        kind != .any && kind != .object && typeWord == PlainValues.metadata(Value.self)
    }
}

/// The bytes of a row (`ValueRow`): positions at their shape's offsets, then one tag byte each
/// for the typed ones (`absent`, `typed`, or `other`: a value of another type, kept in `others`).
/// A non-generic class, so that allocating one needs no metadata lookup. Its header is only
/// ever reached through a pointer (a class property's access would be checked at run time).
@usableFromInline
final class ValueStorage: ManagedBuffer<ValueStorage.Header, UInt64> {
    @usableFromInline
    struct Header {
        /// Keeps `table` alive.
        let shape: ValueShape
        @usableFromInline let table: ShapeTable
        /// Values of typed positions that are not of their position's type, by position.
        var others: [Int: Any] = [:]

        init(shape: ValueShape) {
            self.shape = shape
            table = shape.table
        }
    }

    /// What a typed position holds.
    @usableFromInline
    enum Tag: UInt8 {
        case absent = 0
        case typed = 1
        case other = 2
    }

    static func make(shape: ValueShape) -> ValueStorage {
        let table = shape.table
        let buffer = create(minimumCapacity: table.wordCount) { _ in Header(shape: shape) }
        let storage = unsafeDowncast(buffer, to: ValueStorage.self)
        storage.withUnsafeMutablePointerToElements { words in
            words.initialize(repeating: 0, count: table.wordCount)
            let base = UnsafeMutableRawPointer(words)
            for position in shape.referencePositions {
                switch table.kind(position) {
                case .any: (base + table.offset(position)).initializeMemory(as: Any?.self, repeating: nil, count: 1)
                case .object: (base + table.offset(position)).initializeMemory(as: AnyObject?.self, repeating: nil, count: 1)
                default: break
                }
            }
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointers { header, words in
            let table = header.pointee.table
            let base = UnsafeMutableRawPointer(words)
            for position in header.pointee.shape.referencePositions {
                let slot = base + table.offset(position)
                switch table.kind(position) {
                case .any:
                    slot.assumingMemoryBound(to: Any?.self).deinitialize(count: 1)
                case .object:
                    slot.assumingMemoryBound(to: AnyObject?.self).deinitialize(count: 1)
                case .string where base.load(fromByteOffset: table.tagOffset + position, as: UInt8.self) == Tag.typed.rawValue:
                    slot.assumingMemoryBound(to: String.self).deinitialize(count: 1)
                default:
                    break
                }
            }
        }
    }

    var shape: ValueShape { withUnsafeMutablePointerToHeader { $0.pointee.shape } }

    @usableFromInline
    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.table.count } }

    /// A storage of its own with the same values.
    func copy() -> ValueStorage {
        withUnsafeMutablePointers { header, source in
            let table = header.pointee.table
            let buffer = Self.create(minimumCapacity: table.wordCount) { _ in header.pointee }
            let copy = unsafeDowncast(buffer, to: ValueStorage.self)
            copy.withUnsafeMutablePointerToElements { target in
                // Plain bytes as they are; then the references, retained.
                target.initialize(from: source, count: table.wordCount)
                let from = UnsafeMutableRawPointer(source)
                let to = UnsafeMutableRawPointer(target)
                for position in header.pointee.shape.referencePositions {
                    let offset = table.offset(position)
                    switch table.kind(position) {
                    case .any:
                        (to + offset).initializeMemory(
                            as: Any?.self, repeating: (from + offset).assumingMemoryBound(to: Any?.self).pointee, count: 1)
                    case .object:
                        (to + offset).initializeMemory(
                            as: AnyObject?.self, repeating: (from + offset).assumingMemoryBound(to: AnyObject?.self).pointee,
                            count: 1)
                    case .string where from.load(fromByteOffset: table.tagOffset + position, as: UInt8.self) == Tag.typed.rawValue:
                        (to + offset).initializeMemory(
                            as: String.self, repeating: (from + offset).assumingMemoryBound(to: String.self).pointee, count: 1)
                    default:
                        break
                    }
                }
            }
            return copy
        }
    }

    /// The value at `index`, with the type it was stored with.
    @usableFromInline
    func value(at index: Int) -> Any? {
        withUnsafeMutablePointers { header, words -> Any? in
            let table = header.pointee.table
            let base = UnsafeMutableRawPointer(words)
            let description = table.slot(index)
            let slot = base + Int(description.offset)
            let kind = description.kind
            if kind == .any { return slot.assumingMemoryBound(to: Any?.self).pointee }
            let tag = base.load(fromByteOffset: table.tagOffset + index, as: UInt8.self)
            if kind == .object, tag != Tag.other.rawValue {
                return slot.assumingMemoryBound(to: AnyObject?.self).pointee.map { $0 as Any }
            }
            switch tag {
            case Tag.typed.rawValue:
                switch kind {
                case .int16: return slot.load(as: Int16.self)
                case .int32: return slot.load(as: Int32.self)
                case .int64: return slot.load(as: Int64.self)
                case .double: return slot.load(as: Double.self)
                case .float: return slot.load(as: Float.self)
                case .bool: return slot.load(as: Bool.self)
                case .date: return slot.load(as: Date.self)
                case .string: return slot.assumingMemoryBound(to: String.self).pointee
                case .any, .object: return nil
                }
            case Tag.other.rawValue:
                return header.pointee.others[index]
            default:
                return nil
            }
        }
    }

    /// The value at `index` when it is `nil` or exactly of type `Value`, read in place.
    @inlinable @inline(__always)
    func exactValue<Value>(at index: Int, as type: Value.Type) -> Value?? {
        withUnsafeMutablePointers { header, words -> Value?? in
            let table = header.pointee.table
            let base = UnsafeMutableRawPointer(words)
            let description = table.slot(index)
            let slot = base + Int(description.offset)
            let typeWord = UInt(bitPattern: unsafeBitCast(Value.self as Any.Type, to: UnsafeRawPointer.self))
            if description.kind == .any {
                // An `Any?` is three words of value buffer, then the value's type (0 for `nil`).
                let word = slot.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UInt.self)
                if word == 0 { return .some(nil) }
                // The value lies at the start of the buffer when it fits there (these types do).
                guard word == typeWord, MemoryLayout<Value>.size <= 3 * MemoryLayout<Int>.size,
                    MemoryLayout<Value>.alignment <= MemoryLayout<Int>.alignment,
                    _isPOD(Value.self) || Value.self == String.self
                else { return nil }
                return .some(slot.load(as: Value.self))
            }
            let tag = base.load(fromByteOffset: table.tagOffset + index, as: UInt8.self)
            if description.kind == .object {
                // An object is left to the caller's cast; so is a value kept aside.
                guard tag != Tag.other.rawValue, slot.load(as: UInt.self) == 0 else { return nil }
                return .some(nil)
            }
            switch tag {
            case Tag.absent.rawValue: return .some(nil)
            case Tag.typed.rawValue where description.typeWord == typeWord:
                // A load copies whatever type the bytes were last bound to (a copied row's are
                // bound as words).
                return .some(slot.load(as: Value.self))
            default: return nil
            }
        }
    }

    /// How a typed accessor whose type's metadata is `typeWord` reads position `index`: the
    /// address of a typed value of that very type, `.absent` for no value, else `.other`
    /// (values kept aside, `Any?` positions and objects are read by subscript and cast).
    @usableFromInline
    func typedRead(at index: Int, typeWord: UInt) -> _ManagedRead {
        withUnsafeMutablePointers { header, words -> _ManagedRead in
            let table = header.pointee.table
            let base = UnsafeMutableRawPointer(words)
            let description = table.slot(index)
            let slot = base + Int(description.offset)
            switch description.kind {
            case .any:
                // An `Any?` is three words of value buffer, then the value's type (0 for `nil`).
                guard MemoryLayout<Any?>.size == 4 * MemoryLayout<Int>.size else { return .other(index) }
                return slot.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UInt.self) == 0 ? .absent : .other(index)
            case .object:
                let tag = base.load(fromByteOffset: table.tagOffset + index, as: UInt8.self)
                return tag != Tag.other.rawValue && slot.load(as: UInt.self) == 0 ? .absent : .other(index)
            default:
                switch base.load(fromByteOffset: table.tagOffset + index, as: UInt8.self) {
                case Tag.absent.rawValue: return .absent
                case Tag.typed.rawValue where description.typeWord == typeWord: return .typed(UnsafeRawPointer(slot))
                default: return .other(index)
                }
            }
        }
    }

    /// Calls `body` with the bytes of position `index` and the type word of the value they
    /// hold (0 for none), so that values of plain types are read in place: a typed position's
    /// value, like that of an `Any?` holding one, lies at the start of its bytes. `nil` for a
    /// value kept aside (not of its position's type), which the caller reads by subscript.
    @inline(__always)
    func withSlot<Result>(at index: Int, _ body: (UnsafeRawPointer, UInt) -> Result) -> Result? {
        withUnsafeMutablePointers { header, words -> Result? in
            let table = header.pointee.table
            let base = UnsafeMutableRawPointer(words)
            let description = table.slot(index)
            let slot = UnsafeRawPointer(base + Int(description.offset))
            if description.kind == .any {
                guard MemoryLayout<Any?>.size == 4 * MemoryLayout<Int>.size else { return nil }
                return body(slot, slot.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UInt.self))
            }
            // An object's type word is its class's, which no plain value has: read by subscript.
            if description.kind == .object { return nil }
            switch base.load(fromByteOffset: table.tagOffset + index, as: UInt8.self) {
            case Tag.absent.rawValue: return body(slot, 0)
            case Tag.typed.rawValue: return body(slot, description.typeWord)
            default: return nil
            }
        }
    }

    /// Stores a value at `index` as `setValue` does, read from its container in place when it
    /// is of a typed position's type: `setValue` takes an `Any?`, and wrapping a value in one
    /// copies it through the runtime's generic witnesses (a batch insert's dictionary sets a
    /// million values for 100,000 rows; B2).
    @inline(__always)
    func setPresent(_ value: Any, at index: Int) {
        let description = withUnsafeMutablePointerToHeader { $0.pointee.table.slot(index) }
        guard description.kind != .any, description.kind != .object, PlainValues.typeWord(of: value) == description.typeWord
        else { return setValue(value, at: index) }
        withUnsafeBytes(of: value as Any) { container in
            // Of the position's type, so its value lies at the start of the container.
            switch description.kind {
            case .int16: storeTyped(container.load(as: Int16.self), at: index)
            case .int32: storeTyped(container.load(as: Int32.self), at: index)
            case .int64: storeTyped(container.load(as: Int64.self), at: index)
            case .double: storeTyped(container.load(as: Double.self), at: index)
            case .float: storeTyped(container.load(as: Float.self), at: index)
            case .bool: storeTyped(container.load(as: Bool.self), at: index)
            case .date: storeTyped(container.load(as: Date.self), at: index)
            case .string: storeTyped(container.load(as: String.self), at: index)
            case .any, .object: break
            }
        }
    }

    /// Stores a value at `index`: in place when it is of the position's type, else as given.
    func setValue(_ value: Any?, at index: Int) {
        let description = withUnsafeMutablePointerToHeader { $0.pointee.table.slot(index) }
        let kind = description.kind
        if kind == .any {
            withUnsafeMutablePointerToElements { words in
                (UnsafeMutableRawPointer(words) + Int(description.offset)).assumingMemoryBound(to: Any?.self).pointee = value
            }
            return
        }
        guard let value else { return clear(index) }
        if kind == .object {
            // Objects and object IDs; anything else is kept aside (`as? NSObject` would bridge a
            // string to an `NSString`).
            // Told by type and read in place (`ClassReferences`): a cast costs 700 instructions,
            // at every to-one an import sets.
            if let object = ClassReferences.managedObject(value) { return setObject(object, at: index) }
            if let id = ClassReferences.instance(value, of: NSManagedObjectID.self) { return setObject(id, at: index) }
        } else if PlainValues.containerType(value) == description.typeWord {
            // Of the position's type, so its value lies at the start of the container.
            withUnsafeBytes(of: value) { container in
                switch kind {
                case .int16: storeTyped(container.load(as: Int16.self), at: index)
                case .int32: storeTyped(container.load(as: Int32.self), at: index)
                case .int64: storeTyped(container.load(as: Int64.self), at: index)
                case .double: storeTyped(container.load(as: Double.self), at: index)
                case .float: storeTyped(container.load(as: Float.self), at: index)
                case .bool: storeTyped(container.load(as: Bool.self), at: index)
                case .date: storeTyped(container.load(as: Date.self), at: index)
                case .string: storeTyped(container.load(as: String.self), at: index)
                case .any, .object: break
                }
            }
            return
        }
        clear(index)
        withUnsafeMutablePointerToHeader { $0.pointee.others[index] = value }
        setTag(.other, at: index)
    }

    /// See `ValueRow.objectReference(at:)`.
    func objectReference(at index: Int) -> AnyObject?? {
        withUnsafeMutablePointers { header, words -> AnyObject?? in
            let table = header.pointee.table
            let base = UnsafeMutableRawPointer(words)
            let description = table.slot(index)
            guard description.kind == .object,
                base.load(fromByteOffset: table.tagOffset + index, as: UInt8.self) != Tag.other.rawValue
            else { return nil }
            return .some((base + Int(description.offset)).assumingMemoryBound(to: AnyObject?.self).pointee)
        }
    }

    /// Stores an object (or `nil`) at a position of kind `.object`; elsewhere as `setValue`.
    func setObject(_ object: AnyObject?, at index: Int) {
        let description = withUnsafeMutablePointerToHeader { $0.pointee.table.slot(index) }
        guard description.kind == .object else { return setValue(object, at: index) }
        clear(index)
        withUnsafeMutablePointerToElements { words in
            (UnsafeMutableRawPointer(words) + Int(description.offset)).assumingMemoryBound(to: AnyObject?.self).pointee =
                object
        }
    }

    /// Stores a value of type `Value`: in place when that is the position's type.
    @inline(__always)
    func set<Value>(_ value: Value, at index: Int) {
        if withUnsafeMutablePointerToHeader({ $0.pointee.table.slot(index) }).holdsInPlace(Value.self) {
            storeTyped(value, at: index)
        } else {
            setValue(value, at: index)
        }
    }

    /// Stores a value of the position's own type (checked by the caller).
    @inline(__always)
    private func storeTyped<Value>(_ value: Value, at index: Int) {
        withUnsafeMutablePointers { header, words in
            let table = header.pointee.table
            let base = UnsafeMutableRawPointer(words)
            let slot = base + table.offset(index)
            let tag = base.load(fromByteOffset: table.tagOffset + index, as: UInt8.self)
            if tag == Tag.typed.rawValue {
                if _isPOD(Value.self) {
                    slot.storeBytes(of: value, as: Value.self)
                } else {
                    // A string: bound as one wherever it was stored (here or by `copy()`).
                    slot.assumingMemoryBound(to: Value.self).pointee = value
                }
                return
            }
            if tag == Tag.other.rawValue { header.pointee.others[index] = nil }
            slot.initializeMemory(as: Value.self, repeating: value, count: 1)
            base.storeBytes(of: Tag.typed.rawValue, toByteOffset: table.tagOffset + index, as: UInt8.self)
        }
    }

    /// Empties a typed position.
    private func clear(_ index: Int) {
        withUnsafeMutablePointers { header, words in
            let table = header.pointee.table
            let base = UnsafeMutableRawPointer(words)
            if table.kind(index) == .object {
                (base + table.offset(index)).assumingMemoryBound(to: AnyObject?.self).pointee = nil
            }
            switch base.load(fromByteOffset: table.tagOffset + index, as: UInt8.self) {
            case Tag.typed.rawValue where table.kind(index) == .string:
                (base + table.offset(index)).assumingMemoryBound(to: String.self).deinitialize(count: 1)
            case Tag.other.rawValue:
                header.pointee.others[index] = nil
            default:
                break
            }
            base.storeBytes(of: Tag.absent.rawValue, toByteOffset: table.tagOffset + index, as: UInt8.self)
        }
    }

    private func setTag(_ tag: Tag, at index: Int) {
        withUnsafeMutablePointers { header, words in
            UnsafeMutableRawPointer(words).storeBytes(
                of: tag.rawValue, toByteOffset: header.pointee.table.tagOffset + index, as: UInt8.self)
        }
    }
}
