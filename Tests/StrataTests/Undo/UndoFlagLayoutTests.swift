import Foundation
import Testing

@testable import Strata

#if canImport(Glibc)
    /// glibc's size of an allocated block (declared in malloc.h, which the Glibc module leaves out).
    @_silgen_name("malloc_usable_size")
    private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer?) -> Int
#endif

/// The flag that lets objects skip undo recording took no room: it sits beside the other flags,
/// with the key hint kept in 16 bits, and a hint that did not fit is refused (issue 21).
@Suite struct UndoFlagLayoutTests {
    @Test func anObjectStillFitsItsAllocation() throws {
        #if canImport(Glibc)
            let context = try ObjectGraphTests.Stack(ObjectGraphTests.libraryModel(), type: NSInMemoryStoreType, at: nil)
                .newContext()
            context.performAndWait {
                let novel = Novel(context: context)
                let usable = mallocUsableSize(Unmanaged.passUnretained(novel).toOpaque())
                // 120 bytes of fields take a 128-byte block (120 usable); one byte more takes 144.
                #expect(usable == 120)
            }
        #endif
    }

    @Test func aKeyHintPastSixteenBitsIsRefused() throws {
        let context = try ObjectGraphTests.Stack(ObjectGraphTests.libraryModel(), type: NSInMemoryStoreType, at: nil)
            .newContext()
        context.performAndWait {
            let novel = Novel(context: context)
            let title = try? #require(novel.layout.index(of: "title"))
            novel.keyHint = Int32(title ?? 0)
            #expect(novel.takeKeyHint(for: "title") == title)
            // A position that truncates to another property's is refused by the name check.
            novel.keyHint = Int32(65536 + (title ?? 0) + 1)
            #expect(novel.takeKeyHint(for: "title") == nil)
            novel.keyHint = 40000
            #expect(novel.keyHint < 0)
            #expect(novel.takeKeyHint(for: "title") == nil)
        }
    }

    /// The flags share one byte: setting or clearing each leaves the others, the key hint and
    /// the creation serial as they were.
    @Test func eachFlagChangesAloneInItsByte() throws {
        let context = try ObjectGraphTests.Stack(ObjectGraphTests.libraryModel(), type: NSInMemoryStoreType, at: nil)
            .newContext()
        context.performAndWait {
            let novel = Novel(context: context)
            let serial = novel.creationSerial
            novel.keyHint = 7
            let flags: [ReferenceWritableKeyPath<NSManagedObject, Bool>] = [
                \.faulted, \.isInaccessible, \.hasAwokenFromInsert, \.recordsUndo,
            ]
            let initial = flags.map { novel[keyPath: $0] }
            for (position, flag) in flags.enumerated() {
                novel[keyPath: flag] = !initial[position]
                for (other, otherFlag) in flags.enumerated() {
                    #expect(novel[keyPath: otherFlag] == (other == position ? !initial[other] : initial[other]))
                }
                novel[keyPath: flag] = initial[position]
            }
            #expect(flags.map { novel[keyPath: $0] } == initial)
            #expect(novel.keyHint == 7)
            #expect(novel.creationSerial == serial)
            #expect(Novel(context: context).creationSerial > serial)
        }
    }
}
