import Testing

/// Global mutable state without isolation, which only Swift 5 mode accepts: that this file
/// compiles shows the target is built in Swift 5 language mode.
var importLanguageModeChecks = 0

@Suite("Language mode (CoreData-only files)")
struct ImportLanguageModeTests {
    @Test("the target compiles in Swift 5 language mode")
    func swift5Mode() {
        importLanguageModeChecks += 1
        #expect(importLanguageModeChecks >= 1)
        #expect("\(#file)" == "\(#filePath)")
    }
}
