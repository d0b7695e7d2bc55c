import Foundation

#if !canImport(Darwin)
    /// The name a value transformer is registered under.
    public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// The transformer that unarchives keyed archives of the allowed classes.
        public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
        /// The legacy transformer that unarchives keyed archives.
        public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")
    }

    /// Turns values into other values, and back: Foundation's `ValueTransformer`, which
    /// Foundation on Linux lacks. Core Data stores a transformable attribute's value as the
    /// data its transformer makes.
    ///
    /// ```swift
    /// ValueTransformer.setValueTransformer(ColorTransformer(), forName: .init("ColorTransformer"))
    /// ```
    open class ValueTransformer: NSObject, @unchecked Sendable {
        private static let registry = Protected([String: ValueTransformer]())

        /// Registers a transformer under a name; `nil` removes it.
        open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
            registry.withLock { $0[name.rawValue] = transformer }
        }

        /// The names of the registered transformers.
        open class func valueTransformerNames() -> [NSValueTransformerName] {
            registry.withLock { $0.keys.sorted().map(NSValueTransformerName.init(rawValue:)) }
        }

        /// The transformer registered under the name (the archiving ones are always there).
        public convenience init?(forName name: NSValueTransformerName) {
            guard ValueTransformer.registered(name) != nil else { return nil }
            self.init()
            delegate = ValueTransformer.registered(name)
        }

        /// The registered transformer, or a built-in one by its name or its class name: Xcode
        /// writes `valueTransformerName="NSSecureUnarchiveFromDataTransformer"`, which Apple's
        /// Foundation resolves by instantiating the class of that name.
        static func registered(_ name: NSValueTransformerName) -> ValueTransformer? {
            if let found = registry.withLock({ $0[name.rawValue] }) { return found }
            switch name.rawValue {
            case NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue, "NSSecureUnarchiveFromDataTransformer":
                return NSSecureUnarchiveFromDataTransformer()
            case NSValueTransformerName.keyedUnarchiveFromDataTransformerName.rawValue: return KeyedUnarchiveFromDataTransformer()
            default: return nil
            }
        }

        private var delegate: ValueTransformer?

        public override init() { super.init() }

        /// The class of the transformed values.
        open class func transformedValueClass() -> AnyClass { NSObject.self }
        /// Whether `reverseTransformedValue(_:)` is supported.
        open class func allowsReverseTransformation() -> Bool { true }

        /// The transformed value.
        open func transformedValue(_ value: Any?) -> Any? {
            delegate.map { $0.transformedValue(value) } ?? value
        }

        /// The original value of a transformed one.
        open func reverseTransformedValue(_ value: Any?) -> Any? {
            delegate.map { $0.reverseTransformedValue(value) } ?? value
        }
    }

    /// Unarchives data written by `NSKeyedArchiver`, for values of the `allowedTopLevelClasses`
    /// only (subclasses list their own classes, as on Apple's systems); Xcode's default
    /// transformer of transformable attributes.
    ///
    /// As Apple's, it runs from data to values: `transformedValue(_:)` unarchives and
    /// `reverseTransformedValue(_:)` archives, and Core Data stores a value of an attribute that
    /// uses it (or a subclass) through `reverseTransformedValue(_:)` and reads it back through
    /// `transformedValue(_:)`, the opposite of other transformers.
    ///
    /// Swift values are archived as their Foundation classes (`[String]` as `NSArray`). Reading
    /// does not use Foundation's secure decoding, which on Linux stops the program at a class
    /// it was not asked for; the top-level object's class is checked after decoding instead.
    open class NSSecureUnarchiveFromDataTransformer: ValueTransformer, @unchecked Sendable {
        /// The classes allowed at the top of an archive.
        open class var allowedTopLevelClasses: [AnyClass] {
            [
                NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSURL.self,
                NSUUID.self, NSNull.self,
            ]
        }

        open override class func transformedValueClass() -> AnyClass { NSData.self }

        /// The object archived in the data, when its class is allowed.
        open override func transformedValue(_ value: Any?) -> Any? {
            guard let data = value as? Data, let object = try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data),
                let decoded = object as? NSObject, isAllowed(decoded)
            else { return nil }
            return object
        }

        /// A keyed archive of the object, when its class is allowed.
        open override func reverseTransformedValue(_ value: Any?) -> Any? {
            guard let value, let object = (value as AnyObject) as? (NSObject & NSCoding), isAllowed(object) else { return nil }
            return try? NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: requiresSecureCoding)
        }

        /// Whether archives are written with secure coding (the legacy transformer does not).
        var requiresSecureCoding: Bool { true }

        private func isAllowed(_ object: NSObject) -> Bool {
            type(of: self).allowedTopLevelClasses.contains { object.isKind(of: $0) }
        }
    }

    /// The legacy keyed-archive transformer: any class that conforms to `NSCoding`.
    final class KeyedUnarchiveFromDataTransformer: NSSecureUnarchiveFromDataTransformer, @unchecked Sendable {
        override class var allowedTopLevelClasses: [AnyClass] { [NSObject.self] }
        override var requiresSecureCoding: Bool { false }
    }
#endif
