import Foundation

#if !canImport(Darwin)
    // Core Data code passes predicate arguments as `value as CVarArg`
    // (`NSPredicate(format: "id == %@", id as CVarArg)`). On Apple's systems every Foundation
    // object and bridged value type is a `CVarArg`; on Linux only strings and numbers are, so
    // that code does not compile. Strata's `NSPredicate(format:)` reads the value itself, never
    // its C encoding; the encoding below (an object pointer, as on Apple's systems) only serves
    // code that passes these values to C variadic functions such as `String(format:)`.

    extension NSNumber: @retroactive CVarArg {}
    extension NSDate: @retroactive CVarArg {}
    extension NSNull: @retroactive CVarArg {}
    extension NSUUID: @retroactive CVarArg {}
    extension NSURL: @retroactive CVarArg {}
    extension NSData: @retroactive CVarArg {}
    extension NSArray: @retroactive CVarArg {}
    extension NSSet: @retroactive CVarArg {}
    extension NSOrderedSet: @retroactive CVarArg {}
    extension NSDictionary: @retroactive CVarArg {}
    extension NSManagedObject: CVarArg {}
    extension NSManagedObjectID: CVarArg {}

    extension CVarArg where Self: AnyObject {
        /// The object's address, as `%@` expects it.
        public var _cVarArgEncoding: [Int] { [Int(bitPattern: Unmanaged.passUnretained(self).toOpaque())] }
    }

    extension UUID: @retroactive CVarArg {
        public var _cVarArgEncoding: [Int] { CVarArgBoxes.keep(self as NSUUID) }
    }

    extension Date: @retroactive CVarArg {
        public var _cVarArgEncoding: [Int] {
            CVarArgBoxes.keep(NSDate(timeIntervalSinceReferenceDate: timeIntervalSinceReferenceDate))
        }
    }

    extension URL: @retroactive CVarArg {
        public var _cVarArgEncoding: [Int] { CVarArgBoxes.keep(self as NSURL) }
    }

    extension Data: @retroactive CVarArg {
        public var _cVarArgEncoding: [Int] { CVarArgBoxes.keep(NSData(data: self)) }
    }

    extension Decimal: @retroactive CVarArg {
        public var _cVarArgEncoding: [Int] { CVarArgBoxes.keep(NSDecimalNumber(decimal: self)) }
    }

    /// Foundation objects made for value types passed to C variadic functions, kept alive for
    /// a while (the last 256) so that the address handed out stays valid during the call.
    enum CVarArgBoxes {
        private static let boxes = Protected((objects: [NSObject](), next: 0))

        static func keep(_ object: NSObject) -> [Int] {
            boxes.withLock { state in
                if state.objects.count < 256 {
                    state.objects.append(object)
                } else {
                    state.objects[state.next] = object
                    state.next = (state.next + 1) % 256
                }
            }
            return [Int(bitPattern: Unmanaged.passUnretained(object).toOpaque())]
        }
    }
#endif
