/* Blocks made by new have guards like any other: an underrun before an object, an
 * overrun past an array, found when they are deleted. A single object's front guard ends
 * in 8 zero bytes (the slot delete[] would read an element count from): one byte written
 * there is one byte changed.
 */
struct Sample {
    int channel;
    double value;
};

int main()
{
    Sample *sample = new Sample{1, 2.0};
    reinterpret_cast<unsigned char *>(sample)[-1] = 0x7f; /* underrun by one byte */
    delete sample;

    Sample *samples = new Sample[4];
    samples[4].channel = 9; /* one element past the end */
    delete[] samples;

    Sample *intact = new Sample{3, 4.0};
    delete intact;
    return 0;
}
